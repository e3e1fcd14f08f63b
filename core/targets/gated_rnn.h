// The pieces that the GRU and LSTM targets share because both follow PyTorch's layout:
// per layer weight_ih (gates·H x D), weight_hh (gates·H x H), bias_ih, bias_hh and initial
// states (h0; the LSTM adds c0), an affine readout, and the same stacking, float copy,
// tensor names and metadata. Templates over the layer and model types of gru.h / lstm.h;
// `kind` ("gru" | "lstm") prefixes tensor names and error messages.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/io/tensor.h"
#include "core/targets/build_blocks.h"
#include "core/targets/normal_form.h"
#include "core/targets/tensor_codec.h"
#include "core/util/error.h"

namespace lsrl::gated_rnn {

// An initial state of a layer (h0, c0): its tensor name and the member holding it.
template <class Layer>
struct StateField {
  const char* name;
  decltype(Layer::h0) Layer::*member;
};

template <class Model>
using LayerOf = typename decltype(Model::layers)::value_type;

// Checks every layer's shapes and the readout; `checkLayer(L, at, H)` adds the
// kind-specific checks of one layer. Throws lsrl::Error naming the layer and the tensor.
template <class Model, class CheckLayer>
void validate(const Model& m, const std::string& kind, int gates, CheckLayer checkLayer) {
  const std::string gH = std::to_string(gates) + "H";
  int d = m.inputDim;
  for (size_t k = 0; k < m.layers.size(); ++k) {
    const auto& L = m.layers[k];
    const int H = L.hiddenSize();
    const std::string at = kind + " layer " + std::to_string(k) + ": ";
    if (L.weightIh.rows() != gates * H || L.weightIh.cols() != d) {
      throw Error(at + "weight_ih_l0 is " + std::to_string(L.weightIh.rows()) + "x" +
                  std::to_string(L.weightIh.cols()) + ", expected " + std::to_string(gates * H) +
                  "x" + std::to_string(d));
    }
    if (L.weightHh.rows() != gates * H || L.weightHh.cols() != H) {
      throw Error(at + "weight_hh_l0 is not " + std::to_string(gates * H) + "x" +
                  std::to_string(H));
    }
    if (static_cast<int>(L.biasIh.size()) != gates * H ||
        static_cast<int>(L.biasHh.size()) != gates * H) {
      throw Error(at + "a bias does not have " + gH + " = " + std::to_string(gates * H) +
                  " entries");
    }
    checkLayer(L, at, H);
    d = H;
  }
  if (m.readoutW.cols() != d || static_cast<int>(m.readoutB.size()) != m.readoutW.rows()) {
    throw Error(kind + ": readout is " + std::to_string(m.readoutW.rows()) + "x" +
                std::to_string(m.readoutW.cols()) + ", expected d_out x " + std::to_string(d));
  }
}

// Every layer padded to the largest hidden size with all-zero units (docs/spec/targets.md
// §3.3): gate blocks of the weights and biases, and every initial state in `states`.
template <class Model>
Model stacked(const Model& model, int gates,
              const std::vector<StateField<LayerOf<Model>>>& states) {
  int Hmax = 0;
  for (const auto& L : model.layers) Hmax = std::max(Hmax, L.hiddenSize());
  Model out = model;
  out.stacked = true;
  int D = model.inputDim;
  for (auto& L : out.layers) {
    const int H = L.hiddenSize();
    L.unitsUsed = H;
    L.weightIh = build_blocks::padGateRows(L.weightIh, gates, H, Hmax, D);
    L.weightHh = build_blocks::padGateRows(L.weightHh, gates, H, Hmax, Hmax);
    L.biasIh = build_blocks::padGateVector(L.biasIh, gates, H, Hmax);
    L.biasHh = build_blocks::padGateVector(L.biasHh, gates, H, Hmax);
    for (const auto& s : states) (L.*s.member).resize(static_cast<size_t>(Hmax));
    D = Hmax;
  }
  if (!out.layers.empty()) {
    out.readoutW = ExactMatrix::hstack(
        {model.readoutW, ExactMatrix(model.readoutW.rows(), Hmax - model.readoutW.cols())});
  }
  out.validate();
  return out;
}

// The float64 copy of the shared fields; `copyExtra(exactLayer, floatLayer)` copies the
// kind-specific ones.
template <template <class> class Model, class CopyExtra>
Model<double> toFloat(const Model<Exact>& model, CopyExtra copyExtra) {
  Model<double> out;
  out.stacked = model.stacked;
  out.inputDim = model.inputDim;
  for (const auto& L : model.layers) {
    auto& F = out.layers.emplace_back();
    F.weightIh = FloatMatrix::fromExact(L.weightIh);
    F.weightHh = FloatMatrix::fromExact(L.weightHh);
    F.biasIh = toDoubles(L.biasIh);
    F.biasHh = toDoubles(L.biasHh);
    F.h0 = toDoubles(L.h0);
    F.role = L.role;
    F.nfLayer = L.nfLayer;
    F.unitsUsed = L.unitsUsed;
    copyExtra(L, F);
  }
  out.readoutW = FloatMatrix::fromExact(model.readoutW);
  out.readoutB = toDoubles(model.readoutB);
  return out;
}

// §8 names: {kind}.{k}.weight_ih_l0 … and one vector per state, or stacked
// {kind}.weight_ih_l{k} … and one n x H matrix per state; then readout.weight / .bias.
template <class Model>
std::vector<Tensor> tensors(const Model& model, const std::string& kind,
                            const std::vector<StateField<LayerOf<Model>>>& states) {
  std::vector<Tensor> out;
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const auto& L = model.layers[k];
    const std::string n = std::to_string(k);
    auto name = [&](const std::string& what) {
      return model.stacked ? kind + "." + what + "_l" + n : kind + "." + n + "." + what + "_l0";
    };
    out.push_back(matrixTensor(name("weight_ih"), L.weightIh));
    out.push_back(matrixTensor(name("weight_hh"), L.weightHh));
    out.push_back(vectorTensor(name("bias_ih"), L.biasIh));
    out.push_back(vectorTensor(name("bias_hh"), L.biasHh));
    if (!model.stacked) {
      for (const auto& s : states)
        out.push_back(vectorTensor(kind + "." + n + "." + s.name, L.*s.member));
    }
  }
  if (model.stacked && !model.layers.empty()) {
    const int H = model.layers[0].hiddenSize();
    for (const auto& s : states) {
      std::vector<ExactVector> rows;
      for (const auto& L : model.layers) rows.push_back(L.*s.member);
      out.push_back(matrixTensor(kind + "." + s.name, ExactMatrix::fromDense(rows, H)));
    }
  }
  out.push_back(matrixTensor("readout.weight", model.readoutW));
  out.push_back(vectorTensor("readout.bias", model.readoutB));
  return out;
}

// Adds stacked (with num_layers and hidden_size) and layers [{index, input_size,
// hidden_size, role, nf_layer, units_used (stacked)}] to `meta`; `addExtra(L, j)` adds
// kind-specific fields to a layer's entry.
template <class Model, class AddExtra>
void addMetadata(nlohmann::json& meta, const Model& model, AddExtra addExtra) {
  meta["stacked"] = model.stacked;
  if (model.stacked) {
    meta["num_layers"] = model.layers.size();
    meta["hidden_size"] = model.layers.empty() ? 0 : model.layers[0].hiddenSize();
  }
  nlohmann::json layers = nlohmann::json::array();
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const auto& L = model.layers[k];
    nlohmann::json j = {{"index", k},
                        {"input_size", L.inputSize()},
                        {"hidden_size", L.hiddenSize()},
                        {"role", L.role},
                        {"nf_layer", L.nfLayer}};
    addExtra(L, j);
    if (model.stacked) j["units_used"] = L.unitsUsed;
    layers.push_back(std::move(j));
  }
  meta["layers"] = std::move(layers);
}

// The float64 layers and readout from the tensors named by tensors() and the metadata
// written by addMetadata() (and d_in, d_out); `states` lists the float initial states
// (name, member) in tensor order. Throws lsrl::Error naming a missing or mis-shaped
// tensor. The caller validates.
template <class Model>
void readFromTensors(Model& out, const TensorSource& tensors, const nlohmann::json& meta,
                     const std::string& kind, int gates,
                     const std::vector<StateField<LayerOf<Model>>>& states) {
  const std::string& where = tensors.where();
  out.inputDim = metaInt(meta, "d_in", where);
  int d = out.inputDim;
  const nlohmann::json& layers = metaArray(meta, "layers", where);
  out.stacked = meta.contains("stacked") && metaBool(meta, "stacked", where);
  const int n = static_cast<int>(layers.size());
  const int Hs = out.stacked ? metaInt(meta, "hidden_size", where) : 0;
  std::vector<std::vector<double>> stackedStates;  // per state: n x Hs, row-major
  if (out.stacked && n > 0) {
    for (const auto& s : states) {
      stackedStates.push_back(tensors.get(kind + "." + s.name, {n, Hs}).data);
    }
  }
  for (size_t k = 0; k < layers.size(); ++k) {
    const int H = out.stacked ? Hs : metaInt(layers[k], "hidden_size", where);
    const std::string p = kind + "." + std::to_string(k) + ".";
    auto name = [&](const char* what) {
      return out.stacked ? kind + "." + what + "_l" + std::to_string(k) : p + what + "_l0";
    };
    auto& L = out.layers.emplace_back();
    L.weightIh = tensors.matrix(name("weight_ih"), gates * H, d);
    L.weightHh = tensors.matrix(name("weight_hh"), gates * H, H);
    L.biasIh = tensors.vector(name("bias_ih"), gates * H);
    L.biasHh = tensors.vector(name("bias_hh"), gates * H);
    for (size_t s = 0; s < states.size(); ++s) {
      L.*states[s].member =
          out.stacked
              ? std::vector<double>(stackedStates[s].begin() + static_cast<long>(k) * Hs,
                                    stackedStates[s].begin() + static_cast<long>(k + 1) * Hs)
              : tensors.vector(p + states[s].name, H);
    }
    if (out.stacked) L.unitsUsed = metaInt(layers[k], "units_used", where);
    L.role = metaString(layers[k], "role", where);
    L.nfLayer = metaInt(layers[k], "nf_layer", where);
    d = H;
  }
  const int dOut = metaInt(meta, "d_out", where);
  out.readoutW = tensors.matrix("readout.weight", dOut, d);
  out.readoutB = tensors.vector("readout.bias", dOut);
}

}  // namespace lsrl::gated_rnn
