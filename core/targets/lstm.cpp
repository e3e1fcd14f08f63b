#include "core/targets/lstm.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/targets/build_blocks.h"
#include "core/targets/gated_rnn.h"
#include "core/targets/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

using build_blocks::concat;

template <class S>
void LstmModel<S>::validate() const {
  gated_rnn::validate(*this, "lstm", 4, [](const LstmLayer<S>& L, const std::string& at, int H) {
    if (static_cast<int>(L.c0.size()) != H) throw Error(at + "c0 does not have H entries");
  });
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
    build_blocks::requireReluBranches(N, at);
    const int nl = static_cast<int>(l);
    LstmLayer<Exact> state = reluLayer(N.B, N.A, N.bias);
    state.h0 = N.s0;
    state.role = "state";
    state.nfLayer = nl;
    out.layers.push_back(std::move(state));

    const build_blocks::PaddedBranches branches = build_blocks::paddedBranches(N);
    const int depth = branches.depth;
    const auto& F = branches.f;
    const auto& G = branches.g;
    const int plain = N.gated ? depth - 1 : depth;
    for (int k = 0; k < plain; ++k) {
      const auto [W, b] = build_blocks::sideBySide(branches, k, N.gated);
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

LstmModel<Exact> stackLstm(const LstmModel<Exact>& model) {
  return gated_rnn::stacked(model, 4,
                            {{"h0", &LstmLayer<Exact>::h0}, {"c0", &LstmLayer<Exact>::c0}});
}

LstmModel<double> toFloat(const LstmModel<Exact>& model) {
  return gated_rnn::toFloat<LstmModel>(
      model, [](const LstmLayer<Exact>& L, LstmLayer<double>& F) { F.c0 = toDoubles(L.c0); });
}

template <class S>
std::vector<std::vector<S>> runLstm(const LstmModel<S>& model,
                                    const std::vector<std::vector<S>>& tokens) {
  using sparse_ops::affine;
  using sparse_ops::relu;
  model.validate();
  std::vector<std::vector<S>> hidden, cell;
  for (const auto& L : model.layers) {
    hidden.push_back(L.h0);
    cell.push_back(L.c0);
  }
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    sparse_ops::requireTokenWidth("lstm", t, tokens[t], model.inputDim);
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
  return gated_rnn::tensors(model, "lstm",
                            {{"h0", &LstmLayer<Exact>::h0}, {"c0", &LstmLayer<Exact>::c0}});
}

nlohmann::json lstmMetadata(const LstmModel<Exact>& model) {
  nlohmann::json meta;
  meta["gate_order"] = "i,f,g,o";
  gated_rnn::addMetadata(meta, model, [](const LstmLayer<Exact>&, nlohmann::json&) {});
  return meta;
}

LstmModel<double> lstmFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  LstmModel<double> out;
  gated_rnn::readFromTensors(out, tensors, meta, "lstm", 4,
                             {{"h0", &LstmLayer<double>::h0}, {"c0", &LstmLayer<double>::c0}});
  out.validate();
  return out;
}

}  // namespace lsrl
