// GateLoop as a seed model (docs/spec/seed-models.md §2.8): token embedding → layers of
// [time mixing: the GateLoop operator of gateloop_modes.h on q, k, v, a projected from
// the layer's input, real part returned] and [channel mixing: a position-wise FFN], each
// pre-LayerNormed with a skip connection → final LayerNorm → linear head (logits).
//
//   GateLoopModel model;                                     // default config, seed 0
//   Sequence x = model.taskInput("memory_horizon", 3);       // one-hot [64][6]
//   Trace trace;
//   Sequence logits = model.run(x, &trace);                  // [64][50]
//   trace.get("a_magnitude");                                // [64][8]
//   model.save("gl.safetensors");  GateLoopModel::load("gl.safetensors");
//
// Per layer, with C = d_model channels (d_qk = d_v = d_model, §2.1) in H = d_model / d_h
// heads and u the (LayerNormed) layer input:
//   q, k, v = Linear(u)             γ_pre, θ_pre = Linear_γ(u), Linear_θ(u)   (all C wide)
//   a = f(γ_pre) · exp(i g(θ_pre))  (§2.2; "fixed" transitions use the biases only, the
//                                    LRU/RetNet comparison of §2.7 and §4.2)
//   o = Re(GateLoop(q, k, v, a))    [optionally W_o o + b_o, §2.8 [E], off by default]
//   x ← x + o;  x ← x + W_2 GeLU(W_1 LN(x) + b_1) + b_2
//
// Choices the spec leaves open [E]: pre-norm blocks (LayerNorm ε = 1e-5, learned gain and
// bias) and a final LayerNorm before the head; exact (erf) GeLU in the FFN; the embedding
// is a bias-free Linear on the input rows (a lookup for one-hot tokens). Initialisation:
// embedding N(0, 1); Linear weights N(0, 1/fan_in); biases 0 except b_γ ~ U[1, 4]
// (σ ∈ [0.73, 0.98]: memory lasts at initialisation) and b_θ ~ U[0, π/4] (visible
// rotation); LayerNorm gain 1, bias 0. Layer norm, channel mixing and the skips can be
// switched off, which leaves the bare operator between embedding and head (tests use
// that to set the spec's test vectors as weights).
//
// Inputs: rows of width max_number + 2 (one-hot tokens of the Memory Horizon vocabulary,
// memory_horizon.h); outputs: d_out logits. NaN/Inf in an input row propagate: that
// token's output and every later one become non-finite (the recurrence carries them),
// earlier outputs are unaffected. An empty sequence gives an empty output.
//
// Trace arrays (per layer; layer 0 unprefixed, layer l ≥ 1 prefixed "layer<l>."):
//   gamma_pre, theta_pre [T][C]   the transition pre-activations
//   a_magnitude [T][C]            |a_n| = f(γ_pre)
//   a_phase [T][C]                arg a_n = g(θ_pre), not wrapped
//   memory_length [T][C]          −1/log|a_n| (effective memory length)
//   q, k, v [T][C]
//   prefix_log [T][C][2]          L_n = Σ_{j≤n} log a_j (re, im): the memory horizon
//                                 |Π_{j=m+1}^{n} a_j| = exp(Re(L_n − L_m)), phase Im(...)
//   state [T][H][d_h][d_h][2]     H_n (re, im); row = key index; d_h = 1: [T][C][1][1][2]
//   y [T][C][2]                   the operator's complex output (re is what goes on)
//   attention [H][T][T][2]        surrogate attention A[n,m] (only for T ≤ 256)
//   mode_difference [4]           max |y_mode − y_recurrent| for scan, scan_hillis_steele,
//                                 attention, attention_naive (NaN beyond T = 256 for the
//                                 last two)
//   layer_output [T][d_model]     the residual stream after the layer
// and once: output [T][d_out] (the logits; what run returns).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/seed_models/gateloop_modes.h"
#include "core/seed_models/memory_horizon.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {

// JSON keys in brackets; fromJson fills defaults for missing keys.
struct GateLoopConfig {
  int dModel = 8;           // "d_model": channels; d_qk = d_v = d_model
  int layers = 1;           // "layers"
  int dh = 1;               // "d_h": head size (1 = max-headed, the paper's choice)
  int dChannelMixing = 16;  // "d_channel_mixing": FFN width
  int dOut = 50;            // "d_out": logits (default: the task's modulus)
  GateLoopMagnitude magnitude = GateLoopMagnitude::Sigmoid;  // "magnitude_activation"
  GateLoopPhase phase = GateLoopPhase::Identity;             // "phase_activation"
  bool dataControlled = true;                                // "transitions": "data" | "fixed"
  bool outputProjection = false;                             // "output_projection"
  bool layerNorm = true;                                     // "layer_norm"
  bool channelMixing = true;                                 // "channel_mixing"
  bool residual = true;                                      // "residual"
  GateLoopMode mode = GateLoopMode::Recurrent;               // "mode": see gateLoopModeName
  uint64_t seed = 0;                                         // "seed"
  MemoryHorizonParams task;  // "task_length", "task_resets", "max_number", "modulus"

  int heads() const { return dModel / dh; }
  int dIn() const { return task.vocabulary(); }

  nlohmann::json toJson() const;
  // Throws lsrl::Error "gateloop config: \"key\": ..." for an unknown key, a value of the
  // wrong type, a size out of range, a d_h that does not divide d_model, an unknown
  // activation/mode name, or a model of more than 10^6 weights.
  static GateLoopConfig fromJson(const nlohmann::json& json);
};

// One weight tensor of a config: name and shape, in the order weights() lists them.
// Names: "embed.weight", "layers.0.q.weight", ..., "head.bias".
using GateLoopWeightSpec = WeightSpec;
std::vector<GateLoopWeightSpec> gateLoopWeightSpecs(const GateLoopConfig& config);

class GateLoopModel final : public SeedModel {
 public:
  // Seeded random initialisation (see the header comment).
  explicit GateLoopModel(const GateLoopConfig& config = {});
  // Explicit weights: exactly the tensors of gateLoopWeightSpecs (any order); throws
  // lsrl::Error naming a missing, extra or wrongly shaped tensor.
  GateLoopModel(const GateLoopConfig& config, const std::vector<Tensor>& weights);
  static GateLoopModel load(const std::string& path);
  void save(const std::string& path) const;

  const GateLoopConfig& settings() const { return config_; }
  std::string kind() const override { return "gateloop"; }
  nlohmann::json config() const override { return config_.toJson(); }
  std::vector<Tensor> weights() const override { return weights_; }
  const Tensor& weight(const std::string& name) const;  // throws lsrl::Error naming it
  int inputWidth() const override { return config_.dIn(); }
  int outputWidth() const override { return config_.dOut; }

  Sequence run(const Sequence& input, Trace* trace = nullptr) const override;
  // The same with the operator computed in `mode` instead of the config's.
  Sequence run(const Sequence& input, GateLoopMode mode, Trace* trace = nullptr) const;

  // The operator inputs of `layer` for its (already LayerNormed) input rows u [T][d_model];
  // optionally the pre-activations γ_pre, θ_pre [T][d_model] too.
  GateLoopInputs operatorInputs(int layer, const Sequence& u,
                                std::vector<double>* gammaPre = nullptr,
                                std::vector<double>* thetaPre = nullptr) const;

  // run() in steps, for backends that compute the operator elsewhere (the Vulkan one):
  //   x = embed(input); per layer l: in = layerInputs(l, x), y = operator(in),
  //   x = layerOutput(l, x, y); logits = head(x).
  Sequence embed(const Sequence& input) const;  // throws lsrl::Error for a wrong width
  // The operator inputs of `layer` for the residual stream x (LayerNormed here).
  GateLoopInputs layerInputs(int layer, const Sequence& x, std::vector<double>* gammaPre = nullptr,
                             std::vector<double>* thetaPre = nullptr) const;
  // The residual stream after `layer` from the one before it and the operator's y [T][C].
  Sequence layerOutput(int layer, const Sequence& x, const std::vector<Complex>& y) const;
  Sequence head(const Sequence& x) const;  // final LayerNorm and the linear head
  // Layer `layer`'s trace arrays (the list above) from its inputs, pre-activations, the
  // operator's y and states H_n [T][heads][d_h][d_h], and the stream after the layer;
  // attention and mode_difference are computed from `in` in float64, as run() does.
  void addLayerTrace(Trace& trace, int layer, const GateLoopInputs& in,
                     const std::vector<double>& gammaPre, const std::vector<double>& thetaPre,
                     const std::vector<Complex>& y, const std::vector<Complex>& states,
                     const Sequence& layerOutput) const;

  // "memory_horizon" (default, §2.9), "sum_since_reset" (the same kind of token stream,
  // §5.2) and "tick" (a constant token, §5.2), all with the config's task parameters.
  std::vector<std::string> tasks() const override;
  Sequence taskInput(const std::string& task, uint64_t seed) const override;
  // The task's targets for the tokens of taskInput(task, seed): the Memory Horizon
  // classes, the sums since the last reset, or for "tick" the position n.
  std::vector<double> taskTargets(const std::string& task, uint64_t seed) const;

 private:
  std::vector<int> taskTokens(const std::string& task, uint64_t seed) const;
  Sequence normed(const std::string& name, const Sequence& rows) const;  // LayerNorm if on

  GateLoopConfig config_;
  std::vector<Tensor> weights_;  // in gateLoopWeightSpecs order
};

}  // namespace lsrl::seed_models
