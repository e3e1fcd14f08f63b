// The looped transformer with timestep encoding (TMLT, docs/spec/seed-models.md) as a seed
// model: one block (looped_block.h) applied r times with the same weights, its branches
// scaled per loop by α(t), γ(t) from the timestep encoding (timestep_encoding.h), and an
// affine read-out L_2 applied after every loop (§1.4):
//
//   X^(0) = E (the input rows) or 0          X^(t+1) = TF( X^(t) [+ E if inject], t )
//   read-out(t) = L_2 X^(t)  (per token),    run() returns read-out(r)
//
//   LoopedModel model;                                       // default config, seed 0
//   Sequence x = model.taskInput("random", 3);               // [8][32]
//   Trace trace;
//   Sequence y = model.run(x, &trace);                       // [8][32] (d_out)
//   trace.get("hidden");                                     // [r+1][N][d]
//   LoopedModel::contextualMapping({}).run(...);             // the §6.2 hardmax block
//
// The input is the embedded sequence E itself ([N][d]; the tasks' generators write their
// token features into the d channels). Modes: "timestep": "tmlt" (α, γ from m(t)) or
// "plain" (α = γ = 1, the paper's "Looped TF" baseline, no timestep weights); "scoring":
// softmax (λ multiplies the scores) or hardmax; "baseline_compat" for the published
// LoopedGPT quirk. The number of loops can be changed at run time (run(x, loops)); loops
// past the trained count see PE(t) codes the network never saw.
//
// Initialisation (spec silent except for γ = 0, α = 1 at the paper's start): every linear
// N(0, 1/fan_in), biases 0; the read-out N(0, 1/d). "modulation_init": "random" (default,
// so that a fresh model moves and its curves are visible: W_5 ~ N(0, 0.25/d), b_5 = 1 on the
// γ chunks and 0 on the s chunks) or "zero" (the paper's adaLN-Zero: W_5 = b_5 = 0, the
// identity until trained).
//
// Bad input: a row of the wrong width throws; NaN/Inf propagate (a non-finite token
// reaches every token that attends to it after the first loop: all of them unless causal);
// an empty sequence gives an empty output (and traces with N = 0).
//
// Trace arrays (r = the loops run, N tokens, h heads):
//   hidden [r+1][N][d]         X^(0) … X^(r)
//   mid [r][N][d]              X' of each loop (after the attention branch)
//   attn_branch, mlp_branch [r][N][d]   γ_1 ⊙ MHA(…), γ_2 ⊙ MLP(…): what each branch added
//   attention [r][h][N][N]     row = query, column = key
//   alpha, gamma [r][2][d]     (α_1, α_2), (γ_1, γ_2) per loop (ones in "plain")
//   pe [r][d_f], te [r][d]     PE(t), TE(t) ("tmlt" only)
//   step_norm [r]              ‖X^(t) − X^(t−1)‖_F, t = 1 … r (convergence)
//   readout [r][N][d_out]      L_2 X^(t), t = 1 … r ("decode at loop t")
//   output [N][d_out]          what run returns (= readout[r−1]; L_2 X^(0) when r = 0)
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/seed_models/looped_block.h"
#include "core/seed_models/looped_tasks.h"
#include "core/seed_models/seed_model.h"
#include "core/seed_models/timestep_encoding.h"

namespace lsrl::seed_models {

enum class LoopedTimestep : uint8_t { Tmlt, Plain };  // "tmlt", "plain"
const char* loopedTimestepName(LoopedTimestep t);
std::optional<LoopedTimestep> loopedTimestepFromName(std::string_view name);

// JSON keys in brackets; fromJson fills defaults for missing keys.
struct LoopedConfig {
  int d = 32;       // "d": model width = input width
  int heads = 4;    // "heads"
  int headDim = 8;  // "head_dim": s (default d / heads when "head_dim" is missing)
  int dFf = 128;    // "d_ff": MLP width q (4d)
  int dFreq = 32;   // "d_freq": d_f of the sinusoid (the code's 256 is larger than needed)
  int loops = 8;    // "loops": r
  int dOut = 32;    // "d_out": read-out width
  LoopedTimestep timestep = LoopedTimestep::Tmlt;  // "timestep"
  PeLayout peLayout = PeLayout::CosThenSin;        // "pe_layout": "cos_sin" | "sin_cos_interleaved"
  LoopedScoring scoring = LoopedScoring::Softmax;  // "scoring"
  double softmaxLambda = 1;                        // "softmax_lambda" (> 0)
  bool scaleRsqrtS = true;                         // "scale_rsqrt_s"
  bool causal = false;                             // "causal"
  LoopedNorm norm = LoopedNorm::RMS;               // "norm": "rms" | "none"
  double rmsEps = 1e-6;                            // "rms_eps" (≥ 0)
  LoopedActivation activation = LoopedActivation::GELU;  // "activation": "gelu" | "relu"
  bool inject = false;              // "inject": "none" | "add_input" (E re-added before each loop)
  bool x0Zero = false;              // "x0": "input" | "zero"
  bool qkvoBias = false;            // "qkvo_bias"
  bool ffBias = true;               // "ff_bias"
  bool baselineCompat = false;      // "baseline_compat"
  bool zeroModulationInit = false;  // "modulation_init": "random" | "zero"
  uint64_t seed = 0;                // "seed"
  // "task_tokens", "task_string_length", "sudoku_box", "sudoku_blanks", "icl_dim",
  // "icl_points", "id_base"
  LoopedTaskParams task;

  LoopedBlockOptions blockOptions() const;
  nlohmann::json toJson() const;
  // Throws lsrl::Error "looped config: \"key\": ..." for an unknown key, a value of the
  // wrong type or out of range, an unknown mode name, heads that do not divide d (when
  // "head_dim" is missing) or a model of more than 10^6 weights.
  static LoopedConfig fromJson(const nlohmann::json& json);
};

// One weight tensor of a config, in the order weights() lists them:
// attn.{q,k,v}.weight [h·s][d], attn.o.weight [d][h·s] (+ .bias with qkvo_bias),
// mlp.fc1.weight [d_ff][d], mlp.fc2.weight [d][d_ff] (+ .bias with ff_bias),
// "tmlt" only: timestep.fc1 (W_4 [d][d_f], b_4), timestep.fc2 (W_3 [d][d], b_3),
// modulation (W_5 [4d][d], b_5 [4d]); readout.weight [d_out][d], readout.bias [d_out].
using LoopedWeightSpec = WeightSpec;
std::vector<LoopedWeightSpec> loopedWeightSpecs(const LoopedConfig& config);

// The §6.2 construction (Lemma A.6): d = 5 channels [v, a, 1, scratch, s], one head of size
// 1, no norm, no 1/√s, plain, ReLU FF of width 3, read-out L_2(x) = x_5; `tokens` loops.
struct ContextualMappingParams {
  double base = 4;   // B: IDs in 0 … B−1
  double eps = 0.5;  // 0 < ε < 1
  double bigM = 7;   // M > (B − 1)/ε
  int tokens = 3;    // N (the loops)
  LoopedScoring scoring = LoopedScoring::Hardmax;
  double lambda = 1;  // softmax only
};

class LoopedModel final : public SeedModel {
 public:
  // Seeded random initialisation (see the header comment).
  explicit LoopedModel(const LoopedConfig& config = {});
  // Explicit weights: exactly the tensors of loopedWeightSpecs (any order); throws
  // lsrl::Error naming a missing, extra, wrongly shaped or non-finite tensor.
  LoopedModel(const LoopedConfig& config, const std::vector<Tensor>& weights);
  static LoopedModel load(const std::string& path);
  void save(const std::string& path) const;
  static LoopedModel contextualMapping(const ContextualMappingParams& p);

  const LoopedConfig& settings() const { return config_; }
  std::string kind() const override { return "looped"; }
  nlohmann::json config() const override { return config_.toJson(); }
  std::vector<Tensor> weights() const override { return weights_; }
  const Tensor& weight(const std::string& name) const;  // throws lsrl::Error naming it
  int inputWidth() const override { return config_.d; }
  int outputWidth() const override { return config_.dOut; }

  Sequence run(const Sequence& input, Trace* trace = nullptr) const override;
  // The same with `loops` loops instead of the config's (0 gives L_2 E).
  Sequence run(const Sequence& input, int loops, Trace* trace = nullptr) const;
  // X^(0) … X^(loops) only.
  std::vector<Sequence> trajectory(const Sequence& input, int loops) const;

  const LoopedBlockWeights& blockWeights() const { return block_; }
  // α, γ of loop t (identity in "plain"); the full code (PE, TE, m) in "tmlt" only.
  Modulation modulation(int t) const;
  TimestepCode timestepCode(int t) const;  // throws lsrl::Error in "plain"
  // The block with loop t's α, γ folded into its weights (§6.3 property).
  LoopedBlockWeights effectiveWeights(int t) const;
  Sequence readout(const Sequence& x) const;  // L_2 per token

  // loopedTaskNames(): "random" (default), "contextual_mapping", "sudoku", "countdown",
  // "edit_distance", "lcs", "icl_decision_tree", with the config's task parameters.
  std::vector<std::string> tasks() const override;
  Sequence taskInput(const std::string& task, uint64_t seed) const override;
  LoopedTaskSample taskSample(const std::string& task, uint64_t seed) const;

 private:
  void bind();                                             // weights_ → block_, time_, readout_
  Sequence start(const Sequence& input, int loops) const;  // checks; X^(0)
  Sequence loop(const Sequence& x, const Sequence& input, const Modulation& mod,
                LoopedBlockRecord* record = nullptr) const;  // X^(t+1) from X^(t)

  LoopedConfig config_;
  std::vector<Tensor> weights_;  // in loopedWeightSpecs order
  LoopedBlockWeights block_;
  TimestepWeights time_;
  Affine readout_;
};

}  // namespace lsrl::seed_models
