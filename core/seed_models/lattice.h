// Lattice (docs/spec/seed-models.md §1): a multi-head Orthogonal State Recurrence layer as a seed
// model. Per head h and token x_t (projected input, the default):
//   k_t = act(W_k x_t + b_k) ∈ R^m,  v_t = act(W_v x_t + b_v) ∈ R^d,  q_t = act(W_q x_t + b_q)
//   γ_t = σ(w_γᵀ x_t + b_γ) (or a constant),  μ_t = a constant (or σ(w_μᵀ x_t + b_μ))
//   S_t = the update of lattice_step.h (NOSR + DEC by default),  y_t = S_t q_t
// The output is the heads' y_t side by side (H·d), or with output_gate the block's
// W_o (y ⊙ GeLU(W_g x + b_g)) + b_o (§1.8, [E]). With input "direct" every token carries
// each head's [k (m), v (d), q (m), γ, μ] itself (no weights but S_0): the spec's test
// vectors and the geometric demos drive the recurrence as written.
//
// Config keys (toJson/fromJson; missing keys take these defaults, unknown ones are errors):
//   heads 1, d_in 3, d 3, m 3, seed 0, input "projected"|"direct",
//   mode "nosr"|"osr"|"l1"|"output_normalised"|"delta"|"linear_attention"|"mamba2"|
//        "gated_deltanet", variant "dec"|"enc"|"sim", beta "norm"|"closed_form",
//   lambda 0.05 (l1), eps 1e-12, chunk 1 (> 1: §1.7's approximation, nosr/osr only),
//   init "identity"|"random_orthonormal" (S_0), gamma_mode "sigmoid"|"constant",
//   gamma 1 (the constant), mu_mode "constant"|"sigmoid", mu 1 (the constant),
//   activation "none"|"silu"|"tanh" (on k, v, q), output_gate false,
//   recall_pairs 4, recall_queries 4 (the "assoc_recall" task, assoc_recall.h).
// The default is d = m = 3 (not m = 4) so that S_0 can be orthonormal and the slots are
// points on the sphere the explorer draws without PCA.
//
// Weights (H = heads): w_k [H][m][d_in], b_k [H][m], w_v [H][d][d_in], b_v [H][d],
// w_q [H][m][d_in], b_q [H][m], w_gamma [H][d_in], b_gamma [H] (gamma_mode sigmoid),
// w_mu [H][d_in], b_mu [H] (mu_mode sigmoid), s0 [H][m][d] (always), and with output_gate
// w_g [H·d][d_in], b_g [H·d], w_o [d_in][H·d], b_o [d_in]. Random init ([E], the paper is
// silent): matrices N(0, 1/fan_in), biases 0 except b_mu = 3 (μ ≈ 0.95), s0 per `init`.
//
// Trace (run with a Trace): for head 0 under these names, for head h ≥ 1 under
// "head<h>/<name>"; T tokens:
//   slots [T][m][d] (S_t), slots_initial [m][d], incoming [T][d] (h_t), parallel and
//   orthogonal [T][m][d] (h_t's parts per slot), delta [T][m][d] (Δs), write_strength [T][m]
//   (α), slot_norms [T][m], slot_cosines [T][m][m], beta, theta, cos_in, perp_frac,
//   pre_norms (‖s̃‖), guarded [T][m], error [T][d] (DEC-like) or [T][m] (ENC; absent for
//   SIM, linear_attention, mamba2), loss_before and loss_after [T], k [T][m], v [T][d],
//   q [T][m], gamma [T], mu [T], y [T][d];
// and once: output [T][d_out] (plus mixer_output [T][H·d] with output_gate).
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
  int dIn = 3;  // token width (projected input)
  int d = 3;    // slot dimension
  int m = 3;    // slots per head
  uint64_t seed = 0;
  std::string input = "projected";  // "projected" | "direct"
  LatticeOptions options;           // mode, variant, beta, lambda, eps
  int chunk = 1;
  std::string init = "identity";      // "identity" | "random_orthonormal"
  std::string gammaMode = "sigmoid";  // "sigmoid" | "constant"
  double gamma = 1;
  std::string muMode = "constant";  // "constant" | "sigmoid"
  double mu = 1;
  std::string activation = "none";  // "none" | "silu" | "tanh"
  bool outputGate = false;
  int recallPairs = 4;    // "recall_pairs"
  int recallQueries = 4;  // "recall_queries"

  nlohmann::json toJson() const;
  // Missing keys keep their defaults; lsrl::Error naming the key for an unknown key, a
  // wrong type or a bad value (sizes < 1 or over 1e6 elements, unknown names, ...).
  static LatticeConfig fromJson(const nlohmann::json& json);
  void validate() const;  // the same checks, for a config built in code
};

// Width of one head's direct token [k (m), v (d), q (m), γ, μ], and the packing.
int latticeDirectWidth(int m, int d);
Vector packLatticeToken(const LatticeToken& tok);

class LatticeModel : public SeedModel {
 public:
  explicit LatticeModel(const LatticeConfig& config);  // seeded random init
  // Explicit weights: every tensor the config needs, by name and shape (lsrl::Error
  // naming the tensor otherwise); extra tensors are ignored.
  LatticeModel(const LatticeConfig& config, const std::vector<Tensor>& weights);
  static LatticeModel load(const std::string& path);
  void save(const std::string& path) const;

  std::string kind() const override { return "lattice"; }
  nlohmann::json config() const override { return config_.toJson(); }
  std::vector<Tensor> weights() const override { return weights_; }
  int inputWidth() const override;
  int outputWidth() const override;
  Sequence run(const Sequence& input, Trace* trace = nullptr) const override;
  // The geometric demos, and "assoc_recall" where recallParams() exists.
  std::vector<std::string> tasks() const override;
  // Direct input: each head gets latticeDemo(task, m, d, seed + head). Projected input:
  // x_t is the v_t of latticeDemo(task, m, d_in, seed); "assoc_recall": the rows of
  // assocRecallSample(recallParams(), seed).
  Sequence taskInput(const std::string& task, uint64_t seed) const override;
  // The associative-recall task this model can be trained on: the output (H·d) read as
  // logits over the values, the other d_in − H·d input channels one-hot keys. Empty for
  // direct input, an output gate, or fewer key channels than recall_pairs.
  std::optional<AssocRecallParams> recallParams() const;

  const LatticeConfig& settings() const { return config_; }
  // E.g. m > d with init "identity": S_0 falls back to random unit columns (§1.5).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // What head `head` sees per token (after the width check), and its S_0.
  std::vector<LatticeToken> headTokens(const Sequence& input, int head) const;
  LatticeSlots initialSlots(int head) const;
  // The block's output from the heads' y side by side ([T][H·d]): `mixed` itself, or with
  // output_gate W_o (y ⊙ GeLU(W_g x + b_g)) + b_o; and head `head`'s trace arrays from its
  // steps and S_1..S_T. Public for the Vulkan backend (core/gpu/lattice_device.h),
  // which runs the recurrence on the device and builds the same trace.
  Sequence blockOutput(const Sequence& input, const Sequence& mixed) const;
  void addHeadTrace(Trace& trace, int head, const std::vector<LatticeToken>& tokens,
                    const std::vector<LatticeStepOut>& steps,
                    const std::vector<LatticeSlots>& slots) const;

 private:
  const Tensor& weight(const std::string& name) const;

  LatticeConfig config_;
  std::vector<Tensor> weights_;
  std::vector<std::string> warnings_;
};

}  // namespace lsrl::seed_models
