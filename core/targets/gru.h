// GRU target (docs/spec/targets.md §3): PyTorch nn.GRU layout (gate order r, z, n, reset
// after the matmul) with sigmoid and tanh replaced by ReLU, built from a ReLU-state NF
// model (positivity split or shift first). Per NF layer: one state layer, L MLP layers
// and, for gated layers, a product layer that outputs [acc_t; acc_{t−1}] with
// acc_t − acc_{t−1} = f_t ⊙ g_t (§3.2, §9.1); the consumer applies [I, −I].
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/tensor.h"
#include "core/targets/normal_form.h"
#include "core/targets/tensor_codec.h"

namespace lsrl {

// "pytorch": h' = (1 − z) ⊙ n + z ⊙ h (the product needs an upper bound K on f);
// "paper":   h' = (1 − z) ⊙ h + z ⊙ n (no bound; K = 1).
enum class GruUpdate : uint8_t { Pytorch, Paper };
const char* gruUpdateName(GruUpdate u);
std::optional<GruUpdate> gruUpdateFromName(std::string_view name);

template <class S>
struct GruLayer {
  using Matrix = typename NfTypes<S>::Matrix;
  Matrix weightIh;  // 3H x D, rows r, z, n
  Matrix weightHh;  // 3H x H
  std::vector<S> biasIh, biasHh, h0;
  std::string role;  // "state" | "mlp" | "product"
  int nfLayer = 0;
  std::vector<S> K;   // product layers: the bound K per unit of f (all 1 for "paper")
  int unitsUsed = 0;  // stacked models: the units before padding (0: all)

  int hiddenSize() const { return static_cast<int>(h0.size()); }
  int inputSize() const { return weightIh.cols(); }
};

template <class S>
struct GruModel {
  using Matrix = typename NfTypes<S>::Matrix;
  GruUpdate update = GruUpdate::Pytorch;
  bool stacked = false;  // every layer padded to one hidden size (§3.3)
  int inputDim = 0;
  std::vector<GruLayer<S>> layers;
  Matrix readoutW;  // d_out x H_last (x inputDim without layers); [I, −I] folded in
  std::vector<S> readoutB;

  int outputDim() const { return readoutW.rows(); }
  // Checks every shape; throws lsrl::Error naming the layer and the tensor.
  void validate() const;
};

// `reluNf` must have ReLU states only. `K[l]` is the bound on F's output of gated layer l
// (one entry per unit, each a power of two ≥ the bound; see bounds.h); with "paper" K is
// ignored and taken as 1. Throws lsrl::Error for a layer with an empty MLP branch.
GruModel<Exact> buildGru(const NfModel<Exact>& reluNf, GruUpdate update,
                         const std::vector<ExactVector>& K);

// §3.3: one nn.GRU(num_layers = n)-style module: every layer padded to the largest hidden
// size with all-zero units (exact under ReLU gates: they stay 0); same outputs.
GruModel<Exact> stackGru(const GruModel<Exact>& model);

GruModel<double> toFloat(const GruModel<Exact>& model);

// Every hidden state reset to h0, then one output per token.
template <class S>
std::vector<std::vector<S>> runGru(const GruModel<S>& model,
                                   const std::vector<std::vector<S>>& tokens);
extern template std::vector<std::vector<double>> runGru<double>(
    const GruModel<double>&, const std::vector<std::vector<double>>&);
extern template std::vector<std::vector<Exact>> runGru<Exact>(
    const GruModel<Exact>&, const std::vector<std::vector<Exact>>&);

// §8: gru.{k}.weight_ih_l0 / weight_hh_l0 / bias_ih_l0 / bias_hh_l0 / h0, readout.weight
// / .bias; k counts GRU layers from 0. Stacked: gru.weight_ih_l{k} / weight_hh_l{k} /
// bias_ih_l{k} / bias_hh_l{k} and gru.h0 (n x H), as nn.GRU names them.
std::vector<Tensor> gruTensors(const GruModel<Exact>& model);
// The GRU-specific metadata: gru_update, gate_order, reset, stacked (with num_layers and
// hidden_size), and layers [{index, input_size, hidden_size, role, nf_layer, K (product
// layers), units_used (stacked)}].
nlohmann::json gruMetadata(const GruModel<Exact>& model);
// The float64 model from tensors and the metadata written by gruMetadata (and d_in,
// d_out); throws lsrl::Error naming a missing or mis-shaped tensor.
GruModel<double> gruFromTensors(const TensorSource& tensors, const nlohmann::json& meta);

}  // namespace lsrl
