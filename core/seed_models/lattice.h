// Lattice (docs/spec/seed-models.md §1): a multi-head Orthogonal State Recurrence layer as a seed
// model. Per head h and token x_t (projected input, the default):
//   k̂_t = W_k x_t + b_k, q̂_t = W_q x_t + b_q, each through the causal depthwise conv (conv K > 0:
//   k̃_t[c] = Σ_{j<K} conv_k[h][c][j] k̂_{t−j}[c], §1.8), then
//   k_t = act(k̃_t) ∈ R^m,  v_t = act(W_v x_t + b_v) ∈ R^d,  q_t = act(q̃_t), and with qk_norm "l2"
//   k ← k / sqrt(kᵀk + 1e-6), the same for q
//   γ_t = σ(w_γᵀ x_t + b_γ) (or a constant),  μ_t = a constant (or σ(w_μᵀ x_t + b_μ))
//   S_t = the update of lattice_step.h (NOSR + DEC by default),  y_t = S_t q_t
// The output is the heads' y_t side by side (H·d), or with output_gate the block's
// W_o (y ⊙ GeLU(W_g x + b_g)) + b_o (§1.8, [E]). With input "direct" every token carries
// each head's [k (m), v (d), q (m), γ, μ] itself (no weights but S_0): the spec's test
// vectors and the geometric demos drive the recurrence as written. With input "tokens"
// (§1.8a) the block, gate included, is the mixer of a pre-norm residual stack like
// GateLoop's: x = W_embed r_t; per layer u = LN(x), x ← x + gated mixer of u, and with
// d_ff > 0 x ← x + W_2 GeLU(W_1 LN(x) + b_1) + b_2; logits = W_head LN(x) + b_head.
//
// Config keys (toJson/fromJson; missing keys take these defaults, unknown ones are errors):
//   heads 1, d_in 3, d 3, m 3, seed 0, input "projected"|"direct"|"tokens",
//   mode "nosr"|"osr"|"l1"|"output_normalised"|"delta"|"linear_attention"|"mamba2"|
//        "gated_deltanet", variant "dec"|"enc"|"sim", beta "norm"|"closed_form",
//   lambda 0.05 (l1), eps 1e-12, chunk 1 (> 1: §1.7's approximation, nosr/osr only),
//   init "identity"|"random_orthonormal" (S_0), gamma_mode "sigmoid"|"constant",
//   gamma 1 (the constant), mu_mode "constant"|"sigmoid", mu 1 (the constant),
//   activation "none"|"silu"|"tanh" (on k, v, q), output_gate false (always on with
//   tokens), conv 0 (kernel of the causal conv on k̂, q̂; 0 = none), qk_norm "none"|"l2",
//   s0 "trained"|"fixed" (recorded for training: the PyTorch twin freezes a fixed S_0),
//   recall_pairs 4, recall_queries 4 (the "assoc_recall" task, assoc_recall.h);
//   tokens only: d_model 16, layers 1, d_ff 0 (no MLP), d_out 0 (= d_in);
//   read by the scored tasks' generators (scored_tasks.h): mqar_keys 8, mqar_values 8,
//   mqar_writes 16, mqar_queries 8, mqar_noise 4, mqar_length 64, lm_context 128, text ""
//   (the task's default corpus).
// conv and qk_norm need weights (projected or tokens input). Old configs, without the
// newer keys, build the same tensors and run bit-identically.
// The default is d = m = 3 (not m = 4) so that S_0 can be orthonormal and the slots are
// points on the sphere the explorer draws without PCA.
//
// Weights (H = heads, X = the mixer's input width: d_in, or d_model with tokens):
// w_k [H][m][X], b_k [H][m], w_v [H][d][X], b_v [H][d], w_q [H][m][X], b_q [H][m],
// w_gamma [H][X], b_gamma [H] (gamma_mode sigmoid), w_mu [H][X], b_mu [H] (mu_mode sigmoid),
// s0 [H][m][d] (always), with the gate w_g [H·d][X], b_g [H·d], w_o [X][H·d], b_o [X], and
// with conv > 0 conv_k, conv_q [H][m][K] (after the others, so older lists are unchanged).
// Tokens: embed.weight [d_model][d_in]; per layer l "layers.<l>." + norm1.weight, norm1.bias,
// the mixer's tensors above, and with d_ff norm2.*, ff1.weight [d_ff][d_model], ff1.bias,
// ff2.weight [d_model][d_ff], ff2.bias; norm_f.weight, norm_f.bias, head.weight
// [d_out][d_model], head.bias. Random init ([E], the paper is silent): matrices
// N(0, 1/fan_in) (conv: N(0, 1/K)), biases 0 except b_mu = 3 (μ ≈ 0.95), s0 per `init`,
// the embedding N(0, 1), LayerNorm gain 1 and bias 0.
//
// Trace (run with a Trace): for head 0 under these names, for head h ≥ 1 under
// "head<h>/<name>"; with tokens, layer l ≥ 1's under "layer<l>/" ("layer1/head2/slots");
// T tokens:
//   slots [T][m][d] (S_t), slots_initial [m][d], incoming [T][d] (h_t), parallel and
//   orthogonal [T][m][d] (h_t's parts per slot), delta [T][m][d] (Δs), write_strength [T][m]
//   (α), slot_norms [T][m], slot_cosines [T][m][m], beta, theta, cos_in, perp_frac,
//   pre_norms (‖s̃‖), guarded [T][m], error [T][d] (DEC-like) or [T][m] (ENC; absent for
//   SIM, linear_attention, mamba2), loss_before and loss_after [T], k [T][m], v [T][d],
//   q [T][m], gamma [T], mu [T], y [T][d];
// and once: output [T][outputWidth] (plus mixer_output [T][H·d] with a projected
// input's output_gate).
//
//   LatticeModel model(LatticeConfig{});                  // seeded, NOSR + DEC, one head
//   Trace trace;
//   Sequence y = model.run(model.taskInput("rotating", 1), &trace);
//   model.save("lattice.safetensors");  auto again = LatticeModel::load("lattice.safetensors");
//
// NaN/Inf in the input propagate into the state and the outputs (not reported); a token of
// the wrong width is an lsrl::Error; an empty sequence gives an empty output.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/seed_models/assoc_recall.h"
#include "core/seed_models/lattice_step.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {

struct LatticeConfig {
  int heads = 1;
  int dIn = 3;  // token width (projected input; the vocabulary's one-hot rows with tokens)
  int d = 3;    // slot dimension
  int m = 3;    // slots per head
  uint64_t seed = 0;
  std::string input = "projected";  // "projected" | "direct" | "tokens"
  LatticeOptions options;           // mode, variant, beta, lambda, eps
  int chunk = 1;
  std::string init = "identity";      // "identity" | "random_orthonormal"
  std::string gammaMode = "sigmoid";  // "sigmoid" | "constant"
  double gamma = 1;
  std::string muMode = "constant";  // "constant" | "sigmoid"
  double mu = 1;
  std::string activation = "none";  // "none" | "silu" | "tanh"
  bool outputGate = false;          // tokens: always on
  int conv = 0;                     // "conv": causal conv kernel on k̂, q̂ (0: none)
  std::string qkNorm = "none";      // "qk_norm": "none" | "l2"
  std::string s0 = "trained";       // "s0": "trained" | "fixed"
  int recallPairs = 4;              // "recall_pairs"
  int recallQueries = 4;            // "recall_queries"
  // Input "tokens" (§1.8a).
  int dModel = 16;  // "d_model"
  int layers = 1;   // "layers"
  int dFf = 0;      // "d_ff": 0, no MLP
  int dOut = 0;     // "d_out": 0, d_in
  // Read by the scored tasks' generators (scored_tasks.h), not by the model.
  int mqarKeys = 8;     // "mqar_keys"
  int mqarValues = 8;   // "mqar_values"
  int mqarWrites = 16;  // "mqar_writes"
  int mqarQueries = 8;  // "mqar_queries"
  int mqarNoise = 4;    // "mqar_noise"
  int mqarLength = 64;  // "mqar_length"
  int lmContext = 128;  // "lm_context"
  std::string text;     // "text": "" is the task's default corpus

  bool tokens() const { return input == "tokens"; }
  bool gated() const { return outputGate || tokens(); }
  int mixerWidth() const { return tokens() ? dModel : dIn; }  // X: what w_k reads
  int layerCount() const { return tokens() ? layers : 1; }

  nlohmann::json toJson() const;
  // Missing keys keep their defaults; lsrl::Error naming the key for an unknown key, a
  // wrong type or a bad value (sizes < 1 or over 1e6 elements, unknown names, ...). With
  // input "tokens" a missing output_gate is true and an explicit false an error.
  static LatticeConfig fromJson(const nlohmann::json& json);
  void validate() const;  // the same checks, for a config built in code
};

// The tensors a config needs, in the order weights() lists them (the header's list).
std::vector<WeightSpec> latticeWeightSpecs(const LatticeConfig& config);

// Width of one head's direct token [k (m), v (d), q (m), γ, μ], and the packing.
int latticeDirectWidth(int m, int d);
// The trace prefix of a layer's head (the header's list): "", "head2/", "layer1/head2/".
std::string latticeTracePrefix(int layer, int head);
Vector packLatticeToken(const LatticeToken& tok);

class LatticeModel : public SeedModel {
 public:
  explicit LatticeModel(const LatticeConfig& config);  // seeded random init
  // Explicit weights: exactly the tensors the config needs, by name and shape (lsrl::Error
  // naming a missing, misshaped or extra tensor).
  LatticeModel(const LatticeConfig& config, const std::vector<Tensor>& weights);
  static LatticeModel load(const std::string& path);
  void save(const std::string& path) const;

  std::string kind() const override { return "lattice"; }
  nlohmann::json config() const override { return config_.toJson(); }
  std::vector<Tensor> weights() const override { return weights_; }
  const Tensor& weight(const std::string& name) const;  // throws lsrl::Error naming it
  int inputWidth() const override;
  int outputWidth() const override;
  Sequence run(const Sequence& input, Trace* trace = nullptr) const override;
  // The geometric demos, and "assoc_recall" where recallParams() exists; with tokens
  // "mqar" and "char_lm" (their generators are the scored tasks').
  std::vector<std::string> tasks() const override;
  // Direct input: each head gets latticeDemo(task, m, d, seed + head). Projected input:
  // x_t is the v_t of latticeDemo(task, m, d_in, seed); "assoc_recall": the rows of
  // assocRecallSample(recallParams(), seed); "mqar", "char_lm": scoredSample's input.
  Sequence taskInput(const std::string& task, uint64_t seed) const override;
  // The associative-recall task this model can be trained on: the output (H·d) read as
  // logits over the values, the other d_in − H·d input channels one-hot keys. Empty for
  // direct or tokens input, an output gate, or fewer key channels than recall_pairs.
  std::optional<AssocRecallParams> recallParams() const;

  const LatticeConfig& settings() const { return config_; }
  // E.g. m > d with init "identity": S_0 falls back to random unit slots (§1.5).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // run() in steps, for backends that run the recurrence elsewhere (the Vulkan one,
  // core/gpu/lattice_device.h); every input mode goes through them (one layer, and no
  // embedding or head, unless tokens):
  //   x = embed(input); per layer l: tokens = layerInputs(l, x), each head's y from the
  //   recurrence over tokens[h] from initialSlots(h, l), mixed = the heads' y side by side
  //   [T][H·d], x = layerOutput(l, x, mixed); output = head(x).
  // embed: tokens W_embed r_t, otherwise the rows themselves (lsrl::Error for a wrong width).
  Sequence embed(const Sequence& input) const;
  // What each head of `layer` sees per token from the stream x (LayerNormed with tokens).
  std::vector<std::vector<LatticeToken>> layerInputs(int layer, const Sequence& x) const;
  // Head `head` of `layer`'s tokens from that layer's mixer input u (the input rows, or
  // LN(x) with tokens): the projections, conv, activation and qk_norm (or direct unpacking).
  std::vector<LatticeToken> headTokens(int layer, const Sequence& u, int head) const;
  LatticeSlots initialSlots(int head, int layer = 0) const;
  // The stream after `layer`: with tokens x + gated mixer + MLP; projected, the block's
  // output (W_o (y ⊙ GeLU(W_g x + b_g)) + b_o with output_gate, else mixed); direct, mixed.
  Sequence layerOutput(int layer, const Sequence& x, const Sequence& mixed) const;
  Sequence head(const Sequence& x) const;  // tokens: final LayerNorm and the head; else x
  // Layer `layer`'s trace arrays from each head's tokens, steps and S_1..S_T, and the
  // heads' y side by side (mixer_output with a projected input's gate).
  void addLayerTrace(Trace& trace, int layer, const std::vector<std::vector<LatticeToken>>& tokens,
                     const std::vector<std::vector<LatticeStepOut>>& steps,
                     const std::vector<std::vector<LatticeSlots>>& slots,
                     const Sequence& mixed) const;

 private:
  void addHeadTrace(Trace& trace, const std::string& prefix, const LatticeSlots& initial,
                    const std::vector<LatticeToken>& tokens,
                    const std::vector<LatticeStepOut>& steps,
                    const std::vector<LatticeSlots>& slots) const;
  void checkLayer(int layer) const;

  LatticeConfig config_;
  std::vector<Tensor> weights_;
  std::vector<std::string> warnings_;
};

}  // namespace lsrl::seed_models
