// LSTM target (docs/spec/targets.md §4): PyTorch nn.LSTM layout (gate order i, f, g, o) with
// every sigmoid and tanh replaced by ReLU, built from a ReLU-state NF model. Per NF
// layer: one state layer, then L − 1 MLP layers and one layer that computes the last MLP
// layer of both branches and their product (gated), or L MLP layers (ungated): L + 1
// layers either way (§4.2, §9.3). The forget gate is always 0; no bound is needed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/io/tensor.h"
#include "core/targets/normal_form.h"
#include "core/targets/tensor_codec.h"

namespace lsrl {

template <class S>
struct LstmLayer {
  using Matrix = typename NfTypes<S>::Matrix;
  Matrix weightIh;  // 4H x D, rows i, f, g, o
  Matrix weightHh;  // 4H x H
  std::vector<S> biasIh, biasHh, h0, c0;
  std::string role;  // "state" | "mlp" | "product"
  int nfLayer = 0;
  int unitsUsed = 0;  // stacked models: the units before padding (0: all)

  int hiddenSize() const { return static_cast<int>(h0.size()); }
  int inputSize() const { return weightIh.cols(); }
};

template <class S>
struct LstmModel {
  using Matrix = typename NfTypes<S>::Matrix;
  bool stacked = false;  // every layer padded to one hidden size
  int inputDim = 0;
  std::vector<LstmLayer<S>> layers;
  Matrix readoutW;  // d_out x H_last (x inputDim without layers)
  std::vector<S> readoutB;

  int outputDim() const { return readoutW.rows(); }
  void validate() const;  // throws lsrl::Error naming the layer and the tensor
};

// `reluNf` must have ReLU states only; throws lsrl::Error for an empty MLP branch.
LstmModel<Exact> buildLstm(const NfModel<Exact>& reluNf);

// One nn.LSTM(num_layers = n)-style module: every layer padded to the largest hidden size
// with all-zero units (i = f = g = o = 0, so cell = h = 0: exact); same outputs.
LstmModel<Exact> stackLstm(const LstmModel<Exact>& model);

LstmModel<double> toFloat(const LstmModel<Exact>& model);

// Every h reset to h0 and every cell to c0, then one output per token.
template <class S>
std::vector<std::vector<S>> runLstm(const LstmModel<S>& model,
                                    const std::vector<std::vector<S>>& tokens);
extern template std::vector<std::vector<double>> runLstm<double>(
    const LstmModel<double>&, const std::vector<std::vector<double>>&);
extern template std::vector<std::vector<Exact>> runLstm<Exact>(
    const LstmModel<Exact>&, const std::vector<std::vector<Exact>>&);

// §8: lstm.{k}.weight_ih_l0 / weight_hh_l0 / bias_ih_l0 / bias_hh_l0 / h0 / c0,
// readout.weight / .bias. Stacked: lstm.weight_ih_l{k} … and lstm.h0 / lstm.c0 (n x H).
std::vector<Tensor> lstmTensors(const LstmModel<Exact>& model);
// gate_order, stacked (with num_layers and hidden_size) and layers [{index, input_size,
// hidden_size, role, nf_layer, units_used (stacked)}].
nlohmann::json lstmMetadata(const LstmModel<Exact>& model);
LstmModel<double> lstmFromTensors(const TensorSource& tensors, const nlohmann::json& meta);

}  // namespace lsrl
