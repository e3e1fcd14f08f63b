// What the minGRU and minLSTM seed models share (docs/spec/seed-models.md §3.6): the config, the
// weights, the block around the cell, traces and tasks. The cells themselves (their gate
// Linears, gate arithmetic and trace arrays) are in mingru.h and minlstm.h, the two model
// types (MinGruModel, MinLstmModel) in min_rnn_cell_model.h; the recurrence's three modes
// in min_rnn_scan.h.
//
// Model (§3.6: "a layer is a minLSTM or minGRU followed by a linear layer", residual
// connections, LayerNorm before each layer):
//   x_t = E e_t                                    token embedding (one-hot rows → d_model)
//   per layer:  u = LN(x);  h = cell(u) ∈ R^{d_h};  x ← x + W_out h + b_out
//   logits_t = W_head x_t + b_head                 read-out (d_out)
// The cell's Linears read u_t only (§3.1 change 1): gate pre-activations
// (minGRU "z"; minLSTM "f", "i") and the candidate's ĥ = W_h u + b_h.
//
// Choices the spec leaves open [E]: W_out (d_h → d_model) is §3.6's projection back from
// the expansion; no LayerNorm after the last layer; LayerNorm ε = 1e-5 with a learned
// gain and bias; h_0 = 0 in every layer (§3.2's default), which the log variant starts
// from as g(0) = 0.5 (§3.4 point 1). Initialisation (§4.3: "the default PyTorch
// initialisation is stable"): Linear weights and biases U(−1/√fan_in, 1/√fan_in) as
// nn.Linear, the embedding N(0, 1) as nn.Embedding, LayerNorm gain 1 and bias 0.
// layer_norm and residual can be switched off (tests set the spec's weights that way).
//
// Config keys (missing keys: these defaults; unknown keys and bad values are errors):
//   d_model 8, d_h 8, layers 1, d_out 16, variant "log"|"vanilla", mode
//   "sequential"|"parallel"|"log_space" (log_space needs variant "log"), layer_norm true,
//   residual true, seed 0, vocabulary 16 (input width), task_length 64, data_tokens 4.
//
// Weights: embed.weight [d_model][vocabulary]; per layer l, "layers.<l>." + norm.weight,
// norm.bias [d_model] (with layer_norm), <gate>.weight [d_h][d_model] and <gate>.bias
// [d_h] for each gate Linear and for "h", out.weight [d_model][d_h], out.bias [d_model];
// head.weight [d_out][d_model], head.bias [d_out].
//
// Trace arrays per layer (layer 0 unprefixed, layer l ≥ 1 prefixed "layer<l>."):
//   the cell's gates (mingru.h: z_pre, z; minlstm.h: f_pre, i_pre, f, i, f_prime, i_prime),
//   h_pre [T][d_h] (ĥ), h_tilde [T][d_h] (the candidate: ĥ, or g(ĥ) in the log variant),
//   h0 [d_h] (the state the recurrence starts from), hidden [T][d_h] (h_t, from the mode
//   that ran), attention and retention [d_h][T][T+1] (min_rnn_scan.h; only for T ≤ 256),
//   mode_difference [2] (max |h − h_sequential| of the parallel and log_space modes; NaN
//   for log_space in the vanilla variant), layer_output [T][d_model] (x after the layer);
// and once: output [T][d_out] (the logits, what run returns).
//
// Input: rows of width `vocabulary` (one-hot tokens; any real rows are accepted). NaN/Inf
// in a row propagate (not reported): that token's output and all later ones become
// non-finite in every mode, earlier ones are unaffected. An empty sequence gives an empty
// output; a row of the wrong width is an lsrl::Error.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/seed_models/min_rnn_scan.h"
#include "core/seed_models/seed_model.h"
#include "core/seed_models/selective_copy.h"

namespace lsrl::seed_models {

enum class MinRnnCell : uint8_t { Gru, Lstm };
// The longest sequence whose trace has attention and retention ([d_h][T][T+1] each).
inline constexpr int kMinRnnTraceAttentionMaxSteps = 256;
const char* minRnnCellKind(MinRnnCell cell);  // "mingru", "minlstm"
// The cell's gate Linears, in weight order: {"z"} or {"f", "i"} (the candidate "h" follows).
std::vector<std::string> minRnnGateLinears(MinRnnCell cell);

struct MinRnnConfig {
  int dModel = 8;  // "d_model": the residual stream, the cell's input width
  int dh = 8;      // "d_h": hidden units (expansion factor d_h / d_model)
  int layers = 1;  // "layers"
  int dOut = 16;   // "d_out": logits (default: one per token id)
  MinRnnVariant variant = MinRnnVariant::Log;  // "variant": the paper's log-space model
  MinRnnMode mode = MinRnnMode::Sequential;    // "mode"
  bool layerNorm = true;                       // "layer_norm"
  bool residual = true;                        // "residual"
  uint64_t seed = 0;                           // "seed"
  SelectiveCopyParams task;  // "vocabulary" (the input width), "task_length", "data_tokens"

  int dIn() const { return task.vocabulary; }

  nlohmann::json toJson() const;
  // Throws lsrl::Error "<kind> config: \"key\": ..." for an unknown key, a wrong type, a
  // size out of range, an unknown variant/mode name, log_space with the vanilla variant,
  // task parameters that do not fit, or a model of more than 10^6 weights.
  static MinRnnConfig fromJson(const nlohmann::json& json, MinRnnCell cell);
  void validate(MinRnnCell cell) const;  // the same checks for a config built in code
};

using MinRnnWeightSpec = WeightSpec;
std::vector<MinRnnWeightSpec> minRnnWeightSpecs(const MinRnnConfig& config, MinRnnCell cell);

class MinRnnModel : public SeedModel {
 public:
  std::string kind() const override { return minRnnCellKind(cell_); }
  MinRnnCell cell() const { return cell_; }
  const MinRnnConfig& settings() const { return config_; }
  nlohmann::json config() const override { return config_.toJson(); }
  std::vector<Tensor> weights() const override { return weights_; }
  const Tensor& weight(const std::string& name) const;  // throws lsrl::Error naming it
  int inputWidth() const override { return config_.dIn(); }
  int outputWidth() const override { return config_.dOut; }
  void save(const std::string& path) const;

  Sequence run(const Sequence& input, Trace* trace = nullptr) const override;
  // The same with the recurrence computed in `mode` instead of the config's (log_space
  // throws for the vanilla variant).
  Sequence run(const Sequence& input, MinRnnMode mode, Trace* trace = nullptr) const;

  // Layer `layer`'s recurrence for its (already LayerNormed) input rows u [T][d_model];
  // optionally the pre-activations of its Linears (gates, then "h"), each [T][d_h].
  MinRnnGates layerGates(int layer, const Sequence& u,
                         std::vector<std::vector<double>>* pre = nullptr) const;
  // The steps of run around the recurrence, for backends that run the recurrence
  // elsewhere (core/gpu/min_rnn_device.h): the embedding (checks the input's width),
  // a layer's input u = LN(x) (x itself without layer_norm), its output x + W_out h + b_out
  // from the states h [T][d_h] (without the skip when residual is off), and the logits.
  Sequence embed(const Sequence& input) const;
  Sequence layerInput(int layer, const Sequence& x) const;
  Sequence layerOutput(int layer, const Sequence& x, const std::vector<double>& h) const;
  Sequence head(const Sequence& x) const;
  // h_0 of every layer's recurrence: minRnnInitialState of zeros for the variant.
  std::vector<double> initialState() const;
  // Layer `layer`'s trace arrays (the list above, prefixed) from the pre-activations of
  // its Linears, its gates, its states h [T][d_h] and its output x [T][d_model].
  void addLayerTrace(Trace& trace, int layer, const std::vector<std::vector<double>>& pre,
                     const MinRnnGates& gates, const std::vector<double>& h,
                     const Sequence& x) const;

  // "selective_copy" (the default) and "hold" (selective_copy.h), one-hot rows.
  std::vector<std::string> tasks() const override;
  Sequence taskInput(const std::string& task, uint64_t seed) const override;
  // The targets of taskInput(task, seed): token ids, −1 where there is none.
  std::vector<int> taskTargets(const std::string& task, uint64_t seed) const;

 protected:
  MinRnnModel(MinRnnCell cell, const MinRnnConfig& config);  // seeded initialisation
  // Exactly the tensors of minRnnWeightSpecs (any order, any dtype): throws lsrl::Error
  // naming a missing, extra, wrongly shaped or non-finite tensor.
  MinRnnModel(MinRnnCell cell, const MinRnnConfig& config, const std::vector<Tensor>& weights);

  // A weights file of `cell`: its config and tensors, errors prefixed with the path.
  static std::pair<MinRnnConfig, std::vector<Tensor>> loadParts(MinRnnCell cell,
                                                                const std::string& path);
  // The hand-set one-layer "hold" toy (§5.3) for the task parameters: identity
  // embedding, candidate, projection and head; no LayerNorm, no skip; the vanilla
  // variant; every gate Linear fully open (±20) on data tokens and shut elsewhere. The
  // logits are then ≈ the one-hot of the latest data token.
  static std::pair<MinRnnConfig, std::vector<Tensor>> holdParts(MinRnnCell cell,
                                                                const SelectiveCopyParams& p);

 private:
  MinRnnCell cell_;
  MinRnnConfig config_;
  std::vector<Tensor> weights_;  // in minRnnWeightSpecs order
};

}  // namespace lsrl::seed_models
