#include "core/arch/gru.h"

#include <algorithm>
#include <utility>

#include "core/arch/build_blocks.h"
#include "core/arch/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

using arch_build::blockDiag;
using arch_build::concat;
using arch_build::diag;

const char* gruUpdateName(GruUpdate u) { return u == GruUpdate::Paper ? "paper" : "pytorch"; }

std::optional<GruUpdate> gruUpdateFromName(std::string_view name) {
  if (name == "pytorch") return GruUpdate::Pytorch;
  if (name == "paper") return GruUpdate::Paper;
  return std::nullopt;
}

template <class S>
void GruModel<S>::validate() const {
  int d = inputDim;
  for (size_t k = 0; k < layers.size(); ++k) {
    const GruLayer<S>& L = layers[k];
    const int H = L.hiddenSize();
    const std::string at = "gru layer " + std::to_string(k) + ": ";
    if (L.weightIh.rows() != 3 * H || L.weightIh.cols() != d) {
      throw Error(at + "weight_ih_l0 is " + std::to_string(L.weightIh.rows()) + "x" +
                  std::to_string(L.weightIh.cols()) + ", expected " + std::to_string(3 * H) + "x" +
                  std::to_string(d));
    }
    if (L.weightHh.rows() != 3 * H || L.weightHh.cols() != H) {
      throw Error(at + "weight_hh_l0 is not " + std::to_string(3 * H) + "x" + std::to_string(H));
    }
    if (static_cast<int>(L.biasIh.size()) != 3 * H || static_cast<int>(L.biasHh.size()) != 3 * H) {
      throw Error(at + "a bias does not have 3H = " + std::to_string(3 * H) + " entries");
    }
    d = H;
  }
  if (readoutW.cols() != d || static_cast<int>(readoutB.size()) != readoutW.rows()) {
    throw Error("gru: readout is " + std::to_string(readoutW.rows()) + "x" +
                std::to_string(readoutW.cols()) + ", expected d_out x " + std::to_string(d));
  }
}

template struct GruModel<double>;
template struct GruModel<Exact>;

namespace {

// A GRU layer whose update is h' = n = ReLU(W_in x + b_n + W_hn h): r = 1, z = zOff
// (0 for "pytorch", 1 for "paper").
GruLayer<Exact> plainLayer(const ExactMatrix& Wn, const ExactMatrix& Whn, const ExactVector& bn,
                           const Exact& zOff) {
  const int H = Wn.rows();
  const int D = Wn.cols();
  GruLayer<Exact> L;
  L.weightIh = ExactMatrix::vstack({ExactMatrix(2 * H, D), Wn});
  L.weightHh = ExactMatrix::vstack({ExactMatrix(2 * H, H), Whn});
  L.biasIh = concat({filledVector(H, Exact(1)), filledVector(H, zOff), bn});
  L.biasHh = zerosVector(3 * H);
  L.h0 = zerosVector(H);
  return L;
}

// §3.2 product layer on input [f; g] (width 2 d_y), hidden [acc; prev]: acc' = acc + f ⊙ g,
// prev' = acc.
GruLayer<Exact> productLayer(const ExactVector& K, GruUpdate update) {
  const int dy = static_cast<int>(K.size());
  ExactVector invK;
  for (const Exact& k : K) invK.push_back(Exact(1) / k);
  const ExactMatrix Z(dy, dy);
  const ExactMatrix I = ExactMatrix::identity(dy);
  const bool pytorch = update == GruUpdate::Pytorch;
  const ExactMatrix zRows =
      ExactMatrix::vstack({ExactMatrix::hstack({diag(invK).scaled(Exact(pytorch ? -1 : 1)), Z}),
                           ExactMatrix(dy, 2 * dy)});
  const ExactMatrix nRows =
      ExactMatrix::vstack({ExactMatrix::hstack({Z, diag(K)}), ExactMatrix(dy, 2 * dy)});
  GruLayer<Exact> L;
  L.weightIh = ExactMatrix::vstack({ExactMatrix(2 * dy, 2 * dy), zRows, nRows});
  L.weightHh = ExactMatrix::vstack(
      {ExactMatrix(4 * dy, 2 * dy),
       ExactMatrix::vstack({ExactMatrix::hstack({I, Z}), ExactMatrix::hstack({I, Z})})});
  const ExactVector zBias = pytorch ? concat({filledVector(dy, Exact(1)), zerosVector(dy)})
                                    : concat({zerosVector(dy), filledVector(dy, Exact(1))});
  L.biasIh = concat({filledVector(2 * dy, Exact(1)), zBias, zerosVector(2 * dy)});
  L.biasHh = zerosVector(6 * dy);
  L.h0 = zerosVector(2 * dy);
  L.role = "product";
  L.K = K;
  return L;
}

}  // namespace

GruModel<Exact> buildGru(const NfModel<Exact>& reluNf, GruUpdate update,
                         const std::vector<ExactVector>& K) {
  reluNf.validate();
  GruModel<Exact> out;
  out.update = update;
  out.inputDim = reluNf.inputDim;
  const Exact zOff(update == GruUpdate::Paper ? 1 : 0);
  ExactMatrix Rin = ExactMatrix::identity(reluNf.inputDim);  // NF input = Rin · GRU output
  for (size_t l = 0; l < reluNf.layers.size(); ++l) {
    const NfLayer<Exact>& N = reluNf.layers[l];
    const std::string at = "gru: NF layer " + std::to_string(l);
    if (N.update != StateUpdate::Relu) throw Error(at + " has a linear state (split it first)");
    if (N.f.empty() || (N.gated && N.g.empty())) throw Error(at + " has an empty MLP branch");
    GruLayer<Exact> state = plainLayer(N.B * Rin, N.A, N.bias, zOff);
    state.h0 = N.s0;
    state.role = "state";
    state.nfLayer = static_cast<int>(l);
    out.layers.push_back(std::move(state));

    const int depth = static_cast<int>(std::max(N.f.size(), N.g.size()));
    const auto F = arch_build::paddedBranch(N.f, depth);
    const auto G = N.gated ? arch_build::paddedBranch(N.g, depth) : N.g;
    for (int k = 0; k < depth; ++k) {
      const size_t kk = static_cast<size_t>(k);
      ExactMatrix W = F[kk].W;
      ExactVector b = F[kk].b;
      if (N.gated) {
        W = k == 0 ? ExactMatrix::vstack({F[0].W, G[0].W}) : blockDiag(F[kk].W, G[kk].W);
        b = concat({F[kk].b, G[kk].b});
      }
      GruLayer<Exact> mlp = plainLayer(W, ExactMatrix(W.rows(), W.rows()), b, zOff);
      mlp.role = "mlp";
      mlp.nfLayer = static_cast<int>(l);
      out.layers.push_back(std::move(mlp));
    }
    const int dy = N.outputDim();
    if (N.gated) {
      ExactVector bound = filledVector(dy, Exact(1));
      if (update == GruUpdate::Pytorch) {
        if (l >= K.size() || static_cast<int>(K[l].size()) != dy) {
          throw Error(at + ": no bound K on its F output (the \"pytorch\" product needs one)");
        }
        bound = K[l];
        for (const Exact& k : bound) {
          if (k.sign() <= 0) throw Error(at + ": the bound K must be positive");
        }
      }
      GruLayer<Exact> prod = productLayer(bound, update);
      prod.nfLayer = static_cast<int>(l);
      out.layers.push_back(std::move(prod));
      Rin = ExactMatrix::hstack({ExactMatrix::identity(dy), ExactMatrix::identity(dy, Exact(-1))});
    } else {
      Rin = ExactMatrix::identity(dy);
    }
  }
  out.readoutW = reluNf.readoutW * Rin;
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

GruModel<Exact> stackGru(const GruModel<Exact>& model) {
  int Hmax = 0;
  for (const GruLayer<Exact>& L : model.layers) Hmax = std::max(Hmax, L.hiddenSize());
  GruModel<Exact> out = model;
  out.stacked = true;
  int D = model.inputDim;
  for (GruLayer<Exact>& L : out.layers) {
    const int H = L.hiddenSize();
    L.unitsUsed = H;
    L.weightIh = arch_build::padGateRows(L.weightIh, 3, H, Hmax, D);
    L.weightHh = arch_build::padGateRows(L.weightHh, 3, H, Hmax, Hmax);
    L.biasIh = arch_build::padGateVector(L.biasIh, 3, H, Hmax);
    L.biasHh = arch_build::padGateVector(L.biasHh, 3, H, Hmax);
    L.h0.resize(static_cast<size_t>(Hmax));
    D = Hmax;
  }
  if (!out.layers.empty()) {
    out.readoutW = ExactMatrix::hstack(
        {model.readoutW, ExactMatrix(model.readoutW.rows(), Hmax - model.readoutW.cols())});
  }
  out.validate();
  return out;
}

GruModel<double> toFloat(const GruModel<Exact>& model) {
  GruModel<double> out;
  out.update = model.update;
  out.stacked = model.stacked;
  out.inputDim = model.inputDim;
  for (const GruLayer<Exact>& L : model.layers) {
    GruLayer<double> F;
    F.weightIh = FloatMatrix::fromExact(L.weightIh);
    F.weightHh = FloatMatrix::fromExact(L.weightHh);
    F.biasIh = toDoubles(L.biasIh);
    F.biasHh = toDoubles(L.biasHh);
    F.h0 = toDoubles(L.h0);
    F.role = L.role;
    F.nfLayer = L.nfLayer;
    F.K = toDoubles(L.K);
    F.unitsUsed = L.unitsUsed;
    out.layers.push_back(std::move(F));
  }
  out.readoutW = FloatMatrix::fromExact(model.readoutW);
  out.readoutB = toDoubles(model.readoutB);
  return out;
}

template <class S>
std::vector<std::vector<S>> runGru(const GruModel<S>& model,
                                   const std::vector<std::vector<S>>& tokens) {
  using arch_ops::affine;
  using arch_ops::relu;
  model.validate();
  std::vector<std::vector<S>> hidden;
  for (const auto& L : model.layers) hidden.push_back(L.h0);
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  const S one(1);
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (static_cast<int>(tokens[t].size()) != model.inputDim) {
      throw Error("gru: token " + std::to_string(t) + " has " + std::to_string(tokens[t].size()) +
                  " features, expected " + std::to_string(model.inputDim));
    }
    std::vector<S> x = tokens[t];
    for (size_t k = 0; k < model.layers.size(); ++k) {
      const GruLayer<S>& L = model.layers[k];
      std::vector<S>& h = hidden[k];
      const size_t H = h.size();
      const std::vector<S> gi = affine(L.weightIh, x, L.biasIh);
      const std::vector<S> gh = affine(L.weightHh, h, L.biasHh);
      std::vector<S> next(H);
      for (size_t j = 0; j < H; ++j) {
        const S r = relu(gi[j] + gh[j]);
        const S z = relu(gi[H + j] + gh[H + j]);
        const S n = relu(gi[2 * H + j] + r * gh[2 * H + j]);
        next[j] = model.update == GruUpdate::Pytorch ? (one - z) * n + z * h[j]
                                                     : (one - z) * h[j] + z * n;
      }
      h = next;
      x = std::move(next);
    }
    outputs.push_back(affine(model.readoutW, x, model.readoutB));
  }
  return outputs;
}

template std::vector<std::vector<double>> runGru<double>(const GruModel<double>&,
                                                         const std::vector<std::vector<double>>&);
template std::vector<std::vector<Exact>> runGru<Exact>(const GruModel<Exact>&,
                                                       const std::vector<std::vector<Exact>>&);

std::vector<Tensor> gruTensors(const GruModel<Exact>& model) {
  std::vector<Tensor> out;
  if (model.stacked) {
    std::vector<ExactVector> h0;
    for (size_t k = 0; k < model.layers.size(); ++k) {
      const GruLayer<Exact>& L = model.layers[k];
      const std::string n = std::to_string(k);
      out.push_back(matrixTensor("gru.weight_ih_l" + n, L.weightIh));
      out.push_back(matrixTensor("gru.weight_hh_l" + n, L.weightHh));
      out.push_back(vectorTensor("gru.bias_ih_l" + n, L.biasIh));
      out.push_back(vectorTensor("gru.bias_hh_l" + n, L.biasHh));
      h0.push_back(L.h0);
    }
    if (!h0.empty()) {
      out.push_back(
          matrixTensor("gru.h0", ExactMatrix::fromDense(h0, static_cast<int>(h0[0].size()))));
    }
    out.push_back(matrixTensor("readout.weight", model.readoutW));
    out.push_back(vectorTensor("readout.bias", model.readoutB));
    return out;
  }
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const GruLayer<Exact>& L = model.layers[k];
    const std::string p = "gru." + std::to_string(k) + ".";
    out.push_back(matrixTensor(p + "weight_ih_l0", L.weightIh));
    out.push_back(matrixTensor(p + "weight_hh_l0", L.weightHh));
    out.push_back(vectorTensor(p + "bias_ih_l0", L.biasIh));
    out.push_back(vectorTensor(p + "bias_hh_l0", L.biasHh));
    out.push_back(vectorTensor(p + "h0", L.h0));
  }
  out.push_back(matrixTensor("readout.weight", model.readoutW));
  out.push_back(vectorTensor("readout.bias", model.readoutB));
  return out;
}

nlohmann::json gruMetadata(const GruModel<Exact>& model) {
  nlohmann::json meta;
  meta["gru_update"] = gruUpdateName(model.update);
  meta["gate_order"] = "r,z,n";
  meta["reset"] = "after_matmul";
  meta["stacked"] = model.stacked;
  if (model.stacked) {
    meta["num_layers"] = model.layers.size();
    meta["hidden_size"] = model.layers.empty() ? 0 : model.layers[0].hiddenSize();
  }
  nlohmann::json layers = nlohmann::json::array();
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const GruLayer<Exact>& L = model.layers[k];
    nlohmann::json j;
    j["index"] = k;
    j["input_size"] = L.inputSize();
    j["hidden_size"] = L.hiddenSize();
    j["role"] = L.role;
    j["nf_layer"] = L.nfLayer;
    if (L.role == "product") {
      nlohmann::json K = nlohmann::json::array();
      for (const Exact& v : L.K) K.push_back(v.toDouble());
      j["K"] = std::move(K);
    }
    if (model.stacked) j["units_used"] = L.unitsUsed;
    layers.push_back(std::move(j));
  }
  meta["layers"] = std::move(layers);
  return meta;
}

GruModel<double> gruFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  const std::string& where = tensors.where();
  GruModel<double> out;
  const std::string update = metaString(meta, "gru_update", where);
  const auto u = gruUpdateFromName(update);
  if (!u) throw Error(where + ": unknown gru_update \"" + update + "\" (pytorch|paper)");
  out.update = *u;
  out.inputDim = metaInt(meta, "d_in", where);
  int d = out.inputDim;
  const nlohmann::json& layers = metaArray(meta, "layers", where);
  out.stacked = meta.contains("stacked") && metaBool(meta, "stacked", where);
  const int n = static_cast<int>(layers.size());
  const int Hs = out.stacked ? metaInt(meta, "hidden_size", where) : 0;
  const std::vector<double> h0s =
      out.stacked && n > 0 ? tensors.get("gru.h0", {n, Hs}).data : std::vector<double>();
  for (size_t k = 0; k < layers.size(); ++k) {
    const int H = out.stacked ? Hs : metaInt(layers[k], "hidden_size", where);
    const std::string p = "gru." + std::to_string(k) + ".";
    auto name = [&](const char* what) {
      return out.stacked ? "gru." + std::string(what) + "_l" + std::to_string(k) : p + what + "_l0";
    };
    GruLayer<double> L;
    L.weightIh = tensors.matrix(name("weight_ih"), 3 * H, d);
    L.weightHh = tensors.matrix(name("weight_hh"), 3 * H, H);
    L.biasIh = tensors.vector(name("bias_ih"), 3 * H);
    L.biasHh = tensors.vector(name("bias_hh"), 3 * H);
    L.h0 = out.stacked ? std::vector<double>(h0s.begin() + static_cast<long>(k) * Hs,
                                             h0s.begin() + static_cast<long>(k + 1) * Hs)
                       : tensors.vector(p + "h0", H);
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
