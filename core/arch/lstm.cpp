#include "core/arch/lstm.h"

#include <algorithm>
#include <utility>

#include "core/arch/build_blocks.h"
#include "core/arch/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

using arch_build::blockDiag;
using arch_build::concat;

template <class S>
void LstmModel<S>::validate() const {
  int d = inputDim;
  for (size_t k = 0; k < layers.size(); ++k) {
    const LstmLayer<S>& L = layers[k];
    const int H = L.hiddenSize();
    const std::string at = "lstm layer " + std::to_string(k) + ": ";
    if (L.weightIh.rows() != 4 * H || L.weightIh.cols() != d) {
      throw Error(at + "weight_ih_l0 is " + std::to_string(L.weightIh.rows()) + "x" +
                  std::to_string(L.weightIh.cols()) + ", expected " + std::to_string(4 * H) + "x" +
                  std::to_string(d));
    }
    if (L.weightHh.rows() != 4 * H || L.weightHh.cols() != H) {
      throw Error(at + "weight_hh_l0 is not " + std::to_string(4 * H) + "x" + std::to_string(H));
    }
    if (static_cast<int>(L.biasIh.size()) != 4 * H || static_cast<int>(L.biasHh.size()) != 4 * H) {
      throw Error(at + "a bias does not have 4H = " + std::to_string(4 * H) + " entries");
    }
    if (static_cast<int>(L.c0.size()) != H) throw Error(at + "c0 does not have H entries");
    d = H;
  }
  if (readoutW.cols() != d || static_cast<int>(readoutB.size()) != readoutW.rows()) {
    throw Error("lstm: readout is " + std::to_string(readoutW.rows()) + "x" +
                std::to_string(readoutW.cols()) + ", expected d_out x " + std::to_string(d));
  }
}

template struct LstmModel<double>;
template struct LstmModel<Exact>;

namespace {

// An LSTM layer from its input-gate and candidate rows: f = 0, o = 1, no recurrence
// except W_hg; cell' = i ⊙ g and h' = ReLU(cell').
LstmLayer<Exact> layerFrom(const ExactMatrix& Wi, const ExactVector& bi, const ExactMatrix& Wg,
                           const ExactMatrix& Whg, const ExactVector& bg) {
  const int H = Wg.rows();
  const int D = Wg.cols();
  LstmLayer<Exact> L;
  L.weightIh = ExactMatrix::vstack({Wi, ExactMatrix(H, D), Wg, ExactMatrix(H, D)});
  L.weightHh = ExactMatrix::vstack({ExactMatrix(2 * H, H), Whg, ExactMatrix(H, H)});
  L.biasIh = concat({bi, zerosVector(H), bg, filledVector(H, Exact(1))});
  L.biasHh = zerosVector(4 * H);
  L.h0 = zerosVector(H);
  L.c0 = zerosVector(H);
  return L;
}

// i = 1: h' = ReLU(W x + b (+ W_h h)).
LstmLayer<Exact> reluLayer(const ExactMatrix& W, const ExactMatrix& Wh, const ExactVector& b) {
  return layerFrom(ExactMatrix(W.rows(), W.cols()), filledVector(W.rows(), Exact(1)), W, Wh, b);
}

}  // namespace

LstmModel<Exact> buildLstm(const NfModel<Exact>& reluNf) {
  reluNf.validate();
  LstmModel<Exact> out;
  out.inputDim = reluNf.inputDim;
  for (size_t l = 0; l < reluNf.layers.size(); ++l) {
    const NfLayer<Exact>& N = reluNf.layers[l];
    const std::string at = "lstm: NF layer " + std::to_string(l);
    if (N.update != StateUpdate::Relu) throw Error(at + " has a linear state (split it first)");
    if (N.f.empty() || (N.gated && N.g.empty())) throw Error(at + " has an empty MLP branch");
    const int nl = static_cast<int>(l);
    LstmLayer<Exact> state = reluLayer(N.B, N.A, N.bias);
    state.h0 = N.s0;
    state.role = "state";
    state.nfLayer = nl;
    out.layers.push_back(std::move(state));

    const int depth = static_cast<int>(std::max(N.f.size(), N.g.size()));
    const auto F = arch_build::paddedBranch(N.f, depth);
    const auto G = N.gated ? arch_build::paddedBranch(N.g, depth) : N.g;
    const int plain = N.gated ? depth - 1 : depth;
    for (int k = 0; k < plain; ++k) {
      const size_t kk = static_cast<size_t>(k);
      ExactMatrix W = F[kk].W;
      ExactVector b = F[kk].b;
      if (N.gated) {
        W = k == 0 ? ExactMatrix::vstack({F[0].W, G[0].W}) : blockDiag(F[kk].W, G[kk].W);
        b = concat({F[kk].b, G[kk].b});
      }
      LstmLayer<Exact> mlp = reluLayer(W, ExactMatrix(W.rows(), W.rows()), b);
      mlp.role = "mlp";
      mlp.nfLayer = nl;
      out.layers.push_back(std::move(mlp));
    }
    if (N.gated) {
      // cell' = f_L ⊙ g_L: the input gate computes f_L, the candidate g_L, from
      // [f_{L−1}; g_{L−1}] (or both from s when L = 1).
      const size_t last = static_cast<size_t>(depth - 1);
      ExactMatrix Wi = F[last].W;
      ExactMatrix Wg = G[last].W;
      if (depth > 1) {
        Wi = ExactMatrix::hstack({F[last].W, ExactMatrix(F[last].W.rows(), G[last].W.cols())});
        Wg = ExactMatrix::hstack({ExactMatrix(G[last].W.rows(), F[last].W.cols()), G[last].W});
      }
      LstmLayer<Exact> prod =
          layerFrom(Wi, F[last].b, Wg, ExactMatrix(Wg.rows(), Wg.rows()), G[last].b);
      prod.role = "product";
      prod.nfLayer = nl;
      out.layers.push_back(std::move(prod));
    }
  }
  out.readoutW = reluNf.readoutW;
  out.readoutB = reluNf.readoutB;
  out.validate();
  return out;
}

namespace {

std::vector<double> toDoubles(const ExactVector& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const Exact& x : v) out.push_back(x.toDouble());
  return out;
}

}  // namespace

LstmModel<Exact> stackLstm(const LstmModel<Exact>& model) {
  int Hmax = 0;
  for (const LstmLayer<Exact>& L : model.layers) Hmax = std::max(Hmax, L.hiddenSize());
  LstmModel<Exact> out = model;
  out.stacked = true;
  int D = model.inputDim;
  for (LstmLayer<Exact>& L : out.layers) {
    const int H = L.hiddenSize();
    L.unitsUsed = H;
    L.weightIh = arch_build::padGateRows(L.weightIh, 4, H, Hmax, D);
    L.weightHh = arch_build::padGateRows(L.weightHh, 4, H, Hmax, Hmax);
    L.biasIh = arch_build::padGateVector(L.biasIh, 4, H, Hmax);
    L.biasHh = arch_build::padGateVector(L.biasHh, 4, H, Hmax);
    L.h0.resize(static_cast<size_t>(Hmax));
    L.c0.resize(static_cast<size_t>(Hmax));
    D = Hmax;
  }
  if (!out.layers.empty()) {
    out.readoutW = ExactMatrix::hstack(
        {model.readoutW, ExactMatrix(model.readoutW.rows(), Hmax - model.readoutW.cols())});
  }
  out.validate();
  return out;
}

LstmModel<double> toFloat(const LstmModel<Exact>& model) {
  LstmModel<double> out;
  out.stacked = model.stacked;
  out.inputDim = model.inputDim;
  for (const LstmLayer<Exact>& L : model.layers) {
    LstmLayer<double> F;
    F.weightIh = FloatMatrix::fromExact(L.weightIh);
    F.weightHh = FloatMatrix::fromExact(L.weightHh);
    F.biasIh = toDoubles(L.biasIh);
    F.biasHh = toDoubles(L.biasHh);
    F.h0 = toDoubles(L.h0);
    F.c0 = toDoubles(L.c0);
    F.role = L.role;
    F.nfLayer = L.nfLayer;
    F.unitsUsed = L.unitsUsed;
    out.layers.push_back(std::move(F));
  }
  out.readoutW = FloatMatrix::fromExact(model.readoutW);
  out.readoutB = toDoubles(model.readoutB);
  return out;
}

template <class S>
std::vector<std::vector<S>> runLstm(const LstmModel<S>& model,
                                    const std::vector<std::vector<S>>& tokens) {
  using arch_ops::affine;
  using arch_ops::relu;
  model.validate();
  std::vector<std::vector<S>> hidden, cell;
  for (const auto& L : model.layers) {
    hidden.push_back(L.h0);
    cell.push_back(L.c0);
  }
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (static_cast<int>(tokens[t].size()) != model.inputDim) {
      throw Error("lstm: token " + std::to_string(t) + " has " + std::to_string(tokens[t].size()) +
                  " features, expected " + std::to_string(model.inputDim));
    }
    std::vector<S> x = tokens[t];
    for (size_t k = 0; k < model.layers.size(); ++k) {
      const LstmLayer<S>& L = model.layers[k];
      std::vector<S>& h = hidden[k];
      std::vector<S>& c = cell[k];
      const size_t H = h.size();
      std::vector<S> gates = affine(L.weightIh, x, L.biasIh);
      const std::vector<S> gh = affine(L.weightHh, h, L.biasHh);
      for (size_t j = 0; j < gates.size(); ++j) gates[j] = relu(gates[j] + gh[j]);
      for (size_t j = 0; j < H; ++j) {
        c[j] = gates[H + j] * c[j] + gates[j] * gates[2 * H + j];
        h[j] = gates[3 * H + j] * relu(c[j]);
      }
      x = h;
    }
    outputs.push_back(affine(model.readoutW, x, model.readoutB));
  }
  return outputs;
}

template std::vector<std::vector<double>> runLstm<double>(const LstmModel<double>&,
                                                          const std::vector<std::vector<double>>&);
template std::vector<std::vector<Exact>> runLstm<Exact>(const LstmModel<Exact>&,
                                                        const std::vector<std::vector<Exact>>&);

std::vector<Tensor> lstmTensors(const LstmModel<Exact>& model) {
  std::vector<Tensor> out;
  if (model.stacked) {
    std::vector<ExactVector> h0, c0;
    for (size_t k = 0; k < model.layers.size(); ++k) {
      const LstmLayer<Exact>& L = model.layers[k];
      const std::string n = std::to_string(k);
      out.push_back(matrixTensor("lstm.weight_ih_l" + n, L.weightIh));
      out.push_back(matrixTensor("lstm.weight_hh_l" + n, L.weightHh));
      out.push_back(vectorTensor("lstm.bias_ih_l" + n, L.biasIh));
      out.push_back(vectorTensor("lstm.bias_hh_l" + n, L.biasHh));
      h0.push_back(L.h0);
      c0.push_back(L.c0);
    }
    if (!h0.empty()) {
      const int H = static_cast<int>(h0[0].size());
      out.push_back(matrixTensor("lstm.h0", ExactMatrix::fromDense(h0, H)));
      out.push_back(matrixTensor("lstm.c0", ExactMatrix::fromDense(c0, H)));
    }
    out.push_back(matrixTensor("readout.weight", model.readoutW));
    out.push_back(vectorTensor("readout.bias", model.readoutB));
    return out;
  }
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const LstmLayer<Exact>& L = model.layers[k];
    const std::string p = "lstm." + std::to_string(k) + ".";
    out.push_back(matrixTensor(p + "weight_ih_l0", L.weightIh));
    out.push_back(matrixTensor(p + "weight_hh_l0", L.weightHh));
    out.push_back(vectorTensor(p + "bias_ih_l0", L.biasIh));
    out.push_back(vectorTensor(p + "bias_hh_l0", L.biasHh));
    out.push_back(vectorTensor(p + "h0", L.h0));
    out.push_back(vectorTensor(p + "c0", L.c0));
  }
  out.push_back(matrixTensor("readout.weight", model.readoutW));
  out.push_back(vectorTensor("readout.bias", model.readoutB));
  return out;
}

nlohmann::json lstmMetadata(const LstmModel<Exact>& model) {
  nlohmann::json meta;
  meta["gate_order"] = "i,f,g,o";
  meta["stacked"] = model.stacked;
  if (model.stacked) {
    meta["num_layers"] = model.layers.size();
    meta["hidden_size"] = model.layers.empty() ? 0 : model.layers[0].hiddenSize();
  }
  nlohmann::json layers = nlohmann::json::array();
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const LstmLayer<Exact>& L = model.layers[k];
    nlohmann::json j = {{"index", k},
                        {"input_size", L.inputSize()},
                        {"hidden_size", L.hiddenSize()},
                        {"role", L.role},
                        {"nf_layer", L.nfLayer}};
    if (model.stacked) j["units_used"] = L.unitsUsed;
    layers.push_back(std::move(j));
  }
  meta["layers"] = std::move(layers);
  return meta;
}

LstmModel<double> lstmFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  const std::string& where = tensors.where();
  LstmModel<double> out;
  out.inputDim = metaInt(meta, "d_in", where);
  int d = out.inputDim;
  const nlohmann::json& layers = metaArray(meta, "layers", where);
  out.stacked = meta.contains("stacked") && metaBool(meta, "stacked", where);
  const int n = static_cast<int>(layers.size());
  const int Hs = out.stacked ? metaInt(meta, "hidden_size", where) : 0;
  std::vector<double> h0s, c0s;
  if (out.stacked && n > 0) {
    h0s = tensors.get("lstm.h0", {n, Hs}).data;
    c0s = tensors.get("lstm.c0", {n, Hs}).data;
  }
  for (size_t k = 0; k < layers.size(); ++k) {
    const int H = out.stacked ? Hs : metaInt(layers[k], "hidden_size", where);
    const std::string p = "lstm." + std::to_string(k) + ".";
    auto name = [&](const char* what) {
      return out.stacked ? "lstm." + std::string(what) + "_l" + std::to_string(k)
                         : p + what + "_l0";
    };
    auto row = [&](const std::vector<double>& all) {
      return std::vector<double>(all.begin() + static_cast<long>(k) * Hs,
                                 all.begin() + static_cast<long>(k + 1) * Hs);
    };
    LstmLayer<double> L;
    L.weightIh = tensors.matrix(name("weight_ih"), 4 * H, d);
    L.weightHh = tensors.matrix(name("weight_hh"), 4 * H, H);
    L.biasIh = tensors.vector(name("bias_ih"), 4 * H);
    L.biasHh = tensors.vector(name("bias_hh"), 4 * H);
    L.h0 = out.stacked ? row(h0s) : tensors.vector(p + "h0", H);
    L.c0 = out.stacked ? row(c0s) : tensors.vector(p + "c0", H);
    if (out.stacked) L.unitsUsed = metaInt(layers[k], "units_used", where);
    L.role = metaString(layers[k], "role", where);
    L.nfLayer = metaInt(layers[k], "nf_layer", where);
    out.layers.push_back(std::move(L));
    d = H;
  }
  const int dOut = metaInt(meta, "d_out", where);
  out.readoutW = tensors.matrix("readout.weight", dOut, d);
  out.readoutB = tensors.vector("readout.bias", dOut);
  out.validate();
  return out;
}

}  // namespace lsrl
