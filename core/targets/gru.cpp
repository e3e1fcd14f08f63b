#include "core/targets/gru.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/targets/build_blocks.h"
#include "core/targets/gated_rnn.h"
#include "core/targets/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

using build_blocks::concat;
using build_blocks::diag;

const char* gruUpdateName(GruUpdate u) { return u == GruUpdate::Paper ? "paper" : "pytorch"; }

std::optional<GruUpdate> gruUpdateFromName(std::string_view name) {
  if (name == "pytorch") return GruUpdate::Pytorch;
  if (name == "paper") return GruUpdate::Paper;
  return std::nullopt;
}

template <class S>
void GruModel<S>::validate() const {
  gated_rnn::validate(*this, "gru", 3, [](const GruLayer<S>&, const std::string&, int) {});
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
    build_blocks::requireReluBranches(N, at);
    GruLayer<Exact> state = plainLayer(N.B * Rin, N.A, N.bias, zOff);
    state.h0 = N.s0;
    state.role = "state";
    state.nfLayer = static_cast<int>(l);
    out.layers.push_back(std::move(state));

    const build_blocks::PaddedBranches branches = build_blocks::paddedBranches(N);
    for (int k = 0; k < branches.depth; ++k) {
      const auto [W, b] = build_blocks::sideBySide(branches, k, N.gated);
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

GruModel<Exact> stackGru(const GruModel<Exact>& model) {
  return gated_rnn::stacked(model, 3, {{"h0", &GruLayer<Exact>::h0}});
}

GruModel<double> toFloat(const GruModel<Exact>& model) {
  GruModel<double> out = gated_rnn::toFloat<GruModel>(
      model, [](const GruLayer<Exact>& L, GruLayer<double>& F) { F.K = toDoubles(L.K); });
  out.update = model.update;
  return out;
}

template <class S>
std::vector<std::vector<S>> runGru(const GruModel<S>& model,
                                   const std::vector<std::vector<S>>& tokens) {
  using sparse_ops::affine;
  using sparse_ops::relu;
  model.validate();
  std::vector<std::vector<S>> hidden;
  for (const auto& L : model.layers) hidden.push_back(L.h0);
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  const S one(1);
  for (size_t t = 0; t < tokens.size(); ++t) {
    sparse_ops::requireTokenWidth("gru", t, tokens[t], model.inputDim);
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
  return gated_rnn::tensors(model, "gru", {{"h0", &GruLayer<Exact>::h0}});
}

nlohmann::json gruMetadata(const GruModel<Exact>& model) {
  nlohmann::json meta;
  meta["gru_update"] = gruUpdateName(model.update);
  meta["gate_order"] = "r,z,n";
  meta["reset"] = "after_matmul";
  gated_rnn::addMetadata(meta, model, [](const GruLayer<Exact>& L, nlohmann::json& j) {
    if (L.role == "product") {
      nlohmann::json K = nlohmann::json::array();
      for (const Exact& v : L.K) K.push_back(v.toDouble());
      j["K"] = std::move(K);
    }
  });
  return meta;
}

GruModel<double> gruFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  const std::string& where = tensors.where();
  GruModel<double> out;
  const std::string update = metaString(meta, "gru_update", where);
  const auto u = gruUpdateFromName(update);
  if (!u) throw Error(where + ": unknown gru_update \"" + update + "\" (pytorch|paper)");
  out.update = *u;
  gated_rnn::readFromTensors(out, tensors, meta, "gru", 3, {{"h0", &GruLayer<double>::h0}});
  out.validate();
  return out;
}

}  // namespace lsrl
