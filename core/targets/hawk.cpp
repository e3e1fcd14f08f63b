#include "core/targets/hawk.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "core/targets/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// Every tensor of a block: its §8 name after "blocks.{k}.", its shape and the member of
// each given block (one block, or an exact block and its float copy), in §8 order.
// `visit(name, shape, members...)` runs once per tensor; validation, the float copy,
// export and import all walk this one list.
template <class Model, class Visit, class... Blocks>
void forEachBlockTensor(const Model& m, Visit&& visit, Blocks&... b) {
  const int64_t D = m.D, DR = m.DR, M = m.M;
  visit("recurrent.linear_x.weight", std::vector<int64_t>{DR, D}, b.linearX...);
  visit("recurrent.linear_x.bias", std::vector<int64_t>{DR}, b.linearXBias...);
  visit("recurrent.conv_1d.weight", std::vector<int64_t>{DR, 1, m.convWidth}, b.convWeight...);
  visit("recurrent.conv_1d.bias", std::vector<int64_t>{DR}, b.convBias...);
  visit("recurrent.rg_lru.a_param", std::vector<int64_t>{DR}, b.aParam...);
  visit("recurrent.rg_lru.a_gate.weight", std::vector<int64_t>{DR, DR}, b.aGate...);
  visit("recurrent.rg_lru.a_gate.bias", std::vector<int64_t>{DR}, b.aGateBias...);
  visit("recurrent.rg_lru.input_gate.weight", std::vector<int64_t>{DR, DR}, b.inputGate...);
  visit("recurrent.rg_lru.input_gate.bias", std::vector<int64_t>{DR}, b.inputGateBias...);
  visit("recurrent.linear_y.weight", std::vector<int64_t>{DR, D}, b.linearY...);
  visit("recurrent.linear_y.bias", std::vector<int64_t>{DR}, b.linearYBias...);
  visit("recurrent.linear_out.weight", std::vector<int64_t>{D, DR}, b.linearOut...);
  visit("recurrent.linear_out.bias", std::vector<int64_t>{D}, b.linearOutBias...);
  visit("mlp.gate.weight", std::vector<int64_t>{M, D}, b.mlpGate...);
  visit("mlp.gate.bias", std::vector<int64_t>{M}, b.mlpGateBias...);
  visit("mlp.up.weight", std::vector<int64_t>{M, D}, b.mlpUp...);
  visit("mlp.up.bias", std::vector<int64_t>{M}, b.mlpUpBias...);
  visit("mlp.down.weight", std::vector<int64_t>{D, M}, b.mlpDown...);
  visit("mlp.down.bias", std::vector<int64_t>{D}, b.mlpDownBias...);
}

template <class T>
constexpr bool isVector = std::is_same_v<std::decay_t<T>, std::vector<double>> ||
                          std::is_same_v<std::decay_t<T>, std::vector<Exact>>;

size_t elements(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

}  // namespace

template <class S>
void HawkModel<S>::validate() const {
  auto fail = [](const std::string& what) { throw Error("hawk: " + what); };
  auto shape = [&](const std::string& name, const Matrix& m, int rows, int cols) {
    if (m.rows() != rows || m.cols() != cols) {
      fail(name + " is " + std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
           ", expected " + std::to_string(rows) + "x" + std::to_string(cols));
    }
  };
  auto length = [&](const std::string& name, const std::vector<S>& v, size_t n) {
    if (v.size() != n) {
      fail(name + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(n));
    }
  };
  if (convWidth < 1) fail("conv width must be at least 1");
  shape("embed.weight", embed, D, inputDim);
  length("embed.bias", embedBias, static_cast<size_t>(D));
  for (size_t k = 0; k < blocks.size(); ++k) {
    const std::string p = "blocks." + std::to_string(k) + ".";
    auto check = [&](const std::string& name, const std::vector<int64_t>& dims, const auto& x) {
      if constexpr (isVector<decltype(x)>) {
        length(p + name, x, elements(dims));
      } else {
        shape(p + name, x, static_cast<int>(dims[0]), static_cast<int>(dims[1]));
      }
    };
    forEachBlockTensor(*this, check, blocks[k]);
  }
  shape("readout.weight", readoutW, readoutW.rows(), D);
  length("readout.bias", readoutB, static_cast<size_t>(readoutW.rows()));
}

template struct HawkModel<double>;
template struct HawkModel<Exact>;

// ---------------------------------------------------------------------------------
// Construction (§5.3, §5.4): blocks are first collected as channel lists over content
// coordinates, then laid out with uniform widths D, D_R and M.

namespace {

using Row = std::vector<std::pair<int, Exact>>;  // (column, value)

struct RecChannel {
  Row x;
  Exact xBias;
  ExactVector taps;  // w_j multiplies a_{t−j}
  Row out;           // (stream row, value)
};

struct MlpChannel {
  Row gate;
  Exact gateBias;
  Row up;
  Exact upBias;
  int downRow = 0;
  Exact downValue;
};

struct BlockSpec {
  std::vector<RecChannel> rec;
  ExactVector recOutBias;  // over content coordinates 0..size−1
  std::vector<MlpChannel> mlp;
  std::string role, mlpRole;
  int nfLayer = 0;
};

std::vector<Row> rowsOf(const ExactMatrix& W, int colOffset) {
  std::vector<Row> rows(static_cast<size_t>(W.rows()));
  for (const auto& e : W.entries()) {
    rows[static_cast<size_t>(e.row)].push_back({e.col + colOffset, e.value});
  }
  return rows;
}

RecChannel passChannel(int q, const Exact& sign) {
  return {{{q, Exact(1)}}, Exact(), {Exact(1)}, {{q, sign}}};
}

// The residual "clear" MLP channel of content coordinate q: outputs −v_q.
MlpChannel clearMlp(int q) { return {{}, Exact(1), {{q, Exact(1)}}, Exact(), q, Exact(-1)}; }

// Computes ReLU(row · v + bias) into stream row `out`.
MlpChannel computeMlp(Row row, const Exact& bias, int out) {
  return {std::move(row), bias, {}, Exact(1), out, Exact(1)};
}

// Copies content coordinate `from` (linear, so signed values too) into row `out`.
MlpChannel copyMlp(int from, int out) {
  return {{}, Exact(1), {{from, Exact(1)}}, Exact(), out, Exact(1)};
}

// The conv-window weights (taps × channels) a Hawk model may have in all.
constexpr long long kMaxHawkTapValues = 1LL << 22;

class HawkBuilder {
 public:
  HawkBuilder(bool residual, int horizon) : residual_(residual), horizon_(horizon) {}

  void addLayer(const NfLayer<Exact>& L, int l, int du) {
    const std::string at = "hawk: NF layer " + std::to_string(l);
    if (L.update != StateUpdate::Linear) throw Error(at + " has a ReLU state; hawk needs linear");
    if (L.f.empty() && !L.gated) throw Error(at + " has an empty F branch");
    widest(du);
    widest(L.stateDim());
    BlockSpec first;
    first.nfLayer = l;
    stateBlock(L, l, du, first);
    first.role = "state";
    std::vector<BlockSpec> blocks =
        L.gated ? gatedStages(L, std::move(first)) : ungatedStages(L, std::move(first));
    for (BlockSpec& b : blocks) {
      b.nfLayer = l;
      blocks_.push_back(std::move(b));
    }
  }

  HawkModel<Exact> finish(const NfModel<Exact>& nf) {
    widest(nf.inputDim);
    HawkModel<Exact> m;
    m.inputDim = nf.inputDim;
    m.D = D_;
    m.residual = residual_;
    m.convWidth = std::max(1, K_);
    m.maxSeqLen = truncated_ ? horizon_ : 0;
    m.DR = 1;
    m.M = 1;
    for (const BlockSpec& b : blocks_) {
      m.DR = std::max(m.DR, static_cast<int>(b.rec.size()));
      m.M = std::max(m.M, static_cast<int>(b.mlp.size()));
    }
    m.embed = ExactMatrix::vstack(
        {ExactMatrix::identity(nf.inputDim), ExactMatrix(D_ - nf.inputDim, nf.inputDim)});
    m.embedBias = zerosVector(D_);
    for (const BlockSpec& b : blocks_) m.blocks.push_back(layout(b, m));
    m.readoutW = ExactMatrix::hstack(
        {nf.readoutW, ExactMatrix(nf.readoutW.rows(), D_ - nf.readoutW.cols())});
    m.readoutB = nf.readoutB;
    m.validate();
    return m;
  }

 private:
  void widest(int w) { D_ = std::max(D_, w); }

  // §5.3: s_t = s0 + Σ_{j<t} Φ_j [u_{t−j}; 1] with Φ_j = A^j [B, β], β = b + (A − I) s0.
  void stateBlock(const NfLayer<Exact>& L, int l, int du, BlockSpec& out) {
    const int ds = L.stateDim();
    ExactVector beta = L.A * L.s0;
    for (int i = 0; i < ds; ++i) {
      beta[static_cast<size_t>(i)] += L.bias[static_cast<size_t>(i)] - L.s0[static_cast<size_t>(i)];
    }
    std::vector<ExactMatrix::Entry> col;
    for (int i = 0; i < ds; ++i) col.push_back({i, 0, beta[static_cast<size_t>(i)]});
    ExactMatrix Phi = ExactMatrix::hstack({L.B, ExactMatrix::fromEntries(ds, 1, std::move(col))});
    // Without T, Φ_j is either 0 by j = d_s (A nilpotent on the Krylov space) or never.
    const int cap = horizon_ > 0 ? horizon_ : ds + 1;
    std::map<std::pair<int, int>, ExactVector> taps;
    int j = 0;
    while (Phi.nonZeros() > 0 && j < cap) {
      // Checked as the window grows: a recorded horizon of 10^9 must fail here, not after
      // filling memory (the window's weights are exported one per tap and channel).
      const long long pairs =
          std::max<long long>(static_cast<long long>(taps.size()), Phi.nonZeros());
      if (pairs * (j + 1) > kMaxHawkTapValues) {
        throw Error("hawk: NF layer " + std::to_string(l) + " needs a conv window of " +
                    (horizon_ > 0 ? "T = " + std::to_string(horizon_) : std::to_string(cap)) +
                    " taps on " + std::to_string(pairs) + " channels, more than the " +
                    std::to_string(kMaxHawkTapValues) +
                    " weights a hawk export may hold; give a smaller horizon T");
      }
      for (const auto& e : Phi.entries()) {
        ExactVector& w = taps[{e.row, e.col}];
        w.resize(static_cast<size_t>(j) + 1);
        w[static_cast<size_t>(j)] = e.value;
      }
      ++j;
      Phi = L.A * Phi;
    }
    if (Phi.nonZeros() > 0) {
      if (horizon_ == 0) {
        throw Error("hawk: NF layer " + std::to_string(l) +
                    " has a state that never forgets its input (A^j [B, beta] != 0 for all j); "
                    "give a horizon T (max_seq_len) for the conv window");
      }
      truncated_ = true;
    }
    K_ = std::max(K_, j);
    for (auto& [key, w] : taps) {
      const auto [i, p] = key;
      RecChannel c;
      if (p < du) {
        c.x = {{p, Exact(1)}};
      } else {
        c.xBias = Exact(1);  // the constant channel: 1 for t ≥ 1, 0 in the padding
      }
      c.taps = std::move(w);
      c.out = {{i, Exact(1)}};
      out.rec.push_back(std::move(c));
    }
    if (residual_) {
      for (int q = 0; q < du; ++q) out.rec.push_back(passChannel(q, Exact(-1)));
    }
    out.recOutBias = L.s0;
  }

  // A recurrent block that leaves content of width w unchanged.
  void identityBlock(int w, BlockSpec& out) {
    out.role = "identity";
    if (!residual_) {
      for (int q = 0; q < w; ++q) out.rec.push_back(passChannel(q, Exact(1)));
    }
  }

  void clearInput(int w, BlockSpec& out) {
    if (residual_) {
      for (int q = 0; q < w; ++q) out.mlp.push_back(clearMlp(q));
    }
  }

  std::vector<BlockSpec> ungatedStages(const NfLayer<Exact>& L, BlockSpec first) {
    std::vector<BlockSpec> out;
    int w = L.stateDim();
    for (size_t k = 0; k < L.f.size(); ++k) {
      BlockSpec b = k == 0 ? std::move(first) : BlockSpec{};
      if (k > 0) identityBlock(w, b);
      b.mlpRole = "stage";
      const std::vector<Row> rows = rowsOf(L.f[k].W, 0);
      for (size_t r = 0; r < rows.size(); ++r) {
        b.mlp.push_back(computeMlp(rows[r], L.f[k].b[r], static_cast<int>(r)));
      }
      clearInput(w, b);
      w = L.f[k].W.rows();
      widest(w);
      out.push_back(std::move(b));
    }
    return out;
  }

  // §5.4: Q is the deeper branch (G on ties), P the other; N = max(L_P, L_Q − 1) + 1
  // blocks. Stages 1..N−1 carry [p; q], the last computes q's last layer inside the
  // ReLU gate and multiplies it by p on the linear side.
  std::vector<BlockSpec> gatedStages(const NfLayer<Exact>& L, BlockSpec first) {
    const bool gDeeper = L.g.size() >= L.f.size();
    const auto& P = gDeeper ? L.f : L.g;
    const auto& Q = gDeeper ? L.g : L.f;
    const int LP = static_cast<int>(P.size());
    const int LQ = static_cast<int>(Q.size());
    const int N = std::max(LP, LQ - 1) + 1;
    std::vector<BlockSpec> out;
    int pOff = 0, pW = L.stateDim(), qOff = 0, qW = L.stateDim(), inW = L.stateDim();
    for (int k = 1; k <= N; ++k) {
      BlockSpec b = k == 1 ? std::move(first) : BlockSpec{};
      if (k > 1) identityBlock(inW, b);
      if (k < N) {
        b.mlpRole = "stage";
        const int newPW = k <= LP ? P[static_cast<size_t>(k - 1)].W.rows() : pW;
        const int newQW = k <= LQ - 1 ? Q[static_cast<size_t>(k - 1)].W.rows() : qW;
        stageBranch(P, k, LP, pOff, pW, 0, b);
        stageBranch(Q, k, LQ - 1, qOff, qW, newPW, b);
        clearInput(inW, b);
        pOff = 0;
        pW = newPW;
        qOff = newPW;
        qW = newQW;
        inW = newPW + newQW;
        widest(inW);
      } else {
        b.mlpRole = "product";
        const auto& last = Q[static_cast<size_t>(LQ - 1)];
        const std::vector<Row> rows = rowsOf(last.W, qOff);
        for (size_t r = 0; r < rows.size(); ++r) {
          MlpChannel c = computeMlp(rows[r], last.b[r], static_cast<int>(r));
          c.up = {{pOff + static_cast<int>(r), Exact(1)}};
          c.upBias = Exact();
          b.mlp.push_back(std::move(c));
        }
        clearInput(inW, b);
        widest(L.outputDim());
      }
      out.push_back(std::move(b));
    }
    return out;
  }

  // One branch of a gated stage k: compute layer k if k ≤ depth, else copy; reads the
  // branch at `inOff` (width `inW`), writes at `outOff`.
  void stageBranch(const std::vector<NfReluLayer<Exact>>& br, int k, int depth, int inOff, int inW,
                   int outOff, BlockSpec& b) {
    if (k <= depth) {
      const auto& layer = br[static_cast<size_t>(k - 1)];
      const std::vector<Row> rows = rowsOf(layer.W, inOff);
      for (size_t r = 0; r < rows.size(); ++r) {
        b.mlp.push_back(computeMlp(rows[r], layer.b[r], outOff + static_cast<int>(r)));
      }
    } else {
      for (int q = 0; q < inW; ++q) b.mlp.push_back(copyMlp(inOff + q, outOff + q));
    }
  }

  HawkBlock<Exact> layout(const BlockSpec& s, const HawkModel<Exact>& m) const {
    const int DR = m.DR, M = m.M, D = m.D, K = m.convWidth;
    HawkBlock<Exact> b;
    std::vector<ExactMatrix::Entry> x, out, gate, up, down;
    b.linearXBias = zerosVector(DR);
    b.convWeight = zerosVector(DR * K);
    b.linearYBias = zerosVector(DR);
    for (size_t c = 0; c < s.rec.size(); ++c) {
      const RecChannel& ch = s.rec[c];
      const int ci = static_cast<int>(c);
      for (const auto& [col, v] : ch.x) x.push_back({ci, col, v});
      b.linearXBias[c] = ch.xBias;
      for (size_t j = 0; j < ch.taps.size(); ++j) {
        b.convWeight[c * static_cast<size_t>(K) + static_cast<size_t>(K - 1) - j] = ch.taps[j];
      }
      for (const auto& [row, v] : ch.out) out.push_back({row, ci, v});
      b.linearYBias[c] = Exact(1);  // q = 1
    }
    b.linearX = ExactMatrix::fromEntries(DR, D, std::move(x));
    b.convBias = zerosVector(DR);
    b.aParam = zerosVector(DR);     // base ReLU(0) = 0
    b.aGate = ExactMatrix(DR, DR);  // r = 1: α = 0^8 = 0
    b.aGateBias = filledVector(DR, Exact(1));
    b.inputGate = ExactMatrix(DR, DR);  // i = 1
    b.inputGateBias = filledVector(DR, Exact(1));
    b.linearY = ExactMatrix(DR, D);
    b.linearOut = ExactMatrix::fromEntries(D, DR, std::move(out));
    b.linearOutBias = zerosVector(D);
    for (size_t i = 0; i < s.recOutBias.size(); ++i) b.linearOutBias[i] = s.recOutBias[i];
    b.mlpGateBias = zerosVector(M);
    b.mlpUpBias = zerosVector(M);
    for (size_t c = 0; c < s.mlp.size(); ++c) {
      const MlpChannel& ch = s.mlp[c];
      const int ci = static_cast<int>(c);
      for (const auto& [col, v] : ch.gate) gate.push_back({ci, col, v});
      for (const auto& [col, v] : ch.up) up.push_back({ci, col, v});
      b.mlpGateBias[c] = ch.gateBias;
      b.mlpUpBias[c] = ch.upBias;
      down.push_back({ch.downRow, ci, ch.downValue});
    }
    b.mlpGate = ExactMatrix::fromEntries(M, D, std::move(gate));
    b.mlpUp = ExactMatrix::fromEntries(M, D, std::move(up));
    b.mlpDown = ExactMatrix::fromEntries(D, M, std::move(down));
    b.mlpDownBias = zerosVector(D);
    b.role = s.role;
    b.mlpRole = s.mlpRole;
    b.nfLayer = s.nfLayer;
    b.channelsUsed = static_cast<int>(s.rec.size());
    b.mlpChannelsUsed = static_cast<int>(s.mlp.size());
    return b;
  }

  bool residual_;
  int horizon_;
  int D_ = 0;
  int K_ = 1;
  bool truncated_ = false;
  std::vector<BlockSpec> blocks_;
};

}  // namespace

HawkModel<Exact> buildHawk(const NfModel<Exact>& linearNf, bool residual, int horizon) {
  linearNf.validate();
  if (horizon < 0) throw Error("hawk: the horizon T must not be negative");
  HawkBuilder b(residual, horizon);
  int du = linearNf.inputDim;
  for (size_t l = 0; l < linearNf.layers.size(); ++l) {
    b.addLayer(linearNf.layers[l], static_cast<int>(l), du);
    du = linearNf.layers[l].outputDim();
  }
  return b.finish(linearNf);
}

// ---------------------------------------------------------------------------------
// Conversion and forward pass

namespace {

// α = base^(c·r) and sqrt(1 − α²) of the RG-LRU.
struct Decay {
  double alpha, gain;
};
Decay decay(double base, double exponent) {
  const double alpha = std::pow(base, exponent);
  return {alpha, std::sqrt(1.0 - alpha * alpha)};
}

struct ExactDecay {
  Exact alpha, gain;
};
// Exact only where the result is rational without roots: α = 0 (base 0, exponent > 0)
// or α = 1 (base 1, or exponent 0 with base > 0). 0^0 is rejected.
ExactDecay decay(const Exact& base, const Exact& exponent) {
  if (base.isZero()) {
    if (exponent.sign() > 0) return {Exact(), Exact(1)};
    throw Error("hawk: the RG-LRU evaluates 0^0 (decay base 0 with recurrence gate r = 0)");
  }
  if (base.isOne() || exponent.isZero()) return {Exact(1), Exact()};
  throw Error("hawk: the exact RG-LRU supports decay bases 0 and 1 only, got " + base.toString());
}

}  // namespace

HawkModel<double> toFloat(const HawkModel<Exact>& model) {
  HawkModel<double> out;
  out.inputDim = model.inputDim;
  out.D = model.D;
  out.DR = model.DR;
  out.M = model.M;
  out.convWidth = model.convWidth;
  out.residual = model.residual;
  out.lruC = model.lruC;
  out.maxSeqLen = model.maxSeqLen;
  out.embed = FloatMatrix::fromExact(model.embed);
  out.embedBias = toDoubles(model.embedBias);
  for (const HawkBlock<Exact>& b : model.blocks) {
    HawkBlock<double> f;
    auto copy = [](const std::string&, const std::vector<int64_t>&, const auto& exact,
                   auto& approx) {
      if constexpr (isVector<decltype(exact)>) {
        approx = toDoubles(exact);
      } else {
        approx = FloatMatrix::fromExact(exact);
      }
    };
    forEachBlockTensor(model, copy, b, f);
    f.role = b.role;
    f.mlpRole = b.mlpRole;
    f.nfLayer = b.nfLayer;
    f.channelsUsed = b.channelsUsed;
    f.mlpChannelsUsed = b.mlpChannelsUsed;
    out.blocks.push_back(std::move(f));
  }
  out.readoutW = FloatMatrix::fromExact(model.readoutW);
  out.readoutB = toDoubles(model.readoutB);
  return out;
}

template <class S>
std::vector<std::vector<S>> runHawk(const HawkModel<S>& model,
                                    const std::vector<std::vector<S>>& tokens) {
  using sparse_ops::affine;
  using sparse_ops::isZeroValue;
  using sparse_ops::relu;
  using sparse_ops::reluInPlace;
  model.validate();
  if (model.maxSeqLen > 0 && static_cast<int64_t>(tokens.size()) > model.maxSeqLen) {
    throw Error("hawk: " + std::to_string(tokens.size()) + " tokens exceed the horizon T = " +
                std::to_string(model.maxSeqLen) + " that the conv window was built for");
  }
  const size_t K = static_cast<size_t>(model.convWidth);
  const size_t DR = static_cast<size_t>(model.DR);
  // Per block: the last K conv inputs (ring buffer, slot t mod K) and the LRU state.
  std::vector<std::vector<std::vector<S>>> history(
      model.blocks.size(), std::vector<std::vector<S>>(K, std::vector<S>(DR)));
  std::vector<std::vector<S>> lru(model.blocks.size(), std::vector<S>(DR));
  const S lruC(model.lruC);
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    sparse_ops::requireTokenWidth("hawk", t, tokens[t], model.inputDim);
    std::vector<S> v = affine(model.embed, tokens[t], model.embedBias);
    for (size_t k = 0; k < model.blocks.size(); ++k) {
      const HawkBlock<S>& b = model.blocks[k];
      history[k][t % K] = affine(b.linearX, v, b.linearXBias);
      std::vector<S> u = b.convBias;
      for (size_t c = 0; c < DR; ++c) {
        for (size_t j = 0; j < K && j <= t; ++j) {
          const S& w = b.convWeight[c * K + (K - 1 - j)];
          if (!isZeroValue(w)) u[c] += w * history[k][(t - j) % K][c];
        }
      }
      std::vector<S> r = affine(b.aGate, u, b.aGateBias);
      std::vector<S> in = affine(b.inputGate, u, b.inputGateBias);
      reluInPlace(r);
      reluInPlace(in);
      std::vector<S> y = affine(b.linearY, v, b.linearYBias);
      reluInPlace(y);
      std::vector<S>& h = lru[k];
      for (size_t c = 0; c < DR; ++c) {
        const auto d = decay(relu(b.aParam[c]), lruC * r[c]);
        h[c] = d.alpha * h[c] + d.gain * (in[c] * u[c]);
        y[c] *= h[c];
      }
      std::vector<S> rec = affine(b.linearOut, y, b.linearOutBias);
      if (model.residual) {
        for (size_t i = 0; i < v.size(); ++i) v[i] += rec[i];
      } else {
        v = std::move(rec);
      }
      std::vector<S> gate = affine(b.mlpGate, v, b.mlpGateBias);
      reluInPlace(gate);
      const std::vector<S> up = affine(b.mlpUp, v, b.mlpUpBias);
      for (size_t c = 0; c < gate.size(); ++c) gate[c] *= up[c];
      std::vector<S> mlp = affine(b.mlpDown, gate, b.mlpDownBias);
      if (model.residual) {
        for (size_t i = 0; i < v.size(); ++i) v[i] += mlp[i];
      } else {
        v = std::move(mlp);
      }
    }
    outputs.push_back(affine(model.readoutW, v, model.readoutB));
  }
  return outputs;
}

template std::vector<std::vector<double>> runHawk<double>(const HawkModel<double>&,
                                                          const std::vector<std::vector<double>>&);
template std::vector<std::vector<Exact>> runHawk<Exact>(const HawkModel<Exact>&,
                                                        const std::vector<std::vector<Exact>>&);

// ---------------------------------------------------------------------------------
// Tensors and metadata (§8)

std::vector<Tensor> hawkTensors(const HawkModel<Exact>& model) {
  std::vector<Tensor> out;
  out.push_back(matrixTensor("embed.weight", model.embed));
  out.push_back(vectorTensor("embed.bias", model.embedBias));
  for (size_t k = 0; k < model.blocks.size(); ++k) {
    const HawkBlock<Exact>& b = model.blocks[k];
    const std::string p = "blocks." + std::to_string(k) + ".";
    auto add = [&](const std::string& name, const std::vector<int64_t>& dims, const auto& x) {
      if constexpr (isVector<decltype(x)>) {
        Tensor t = vectorTensor(p + name, x);
        if (dims.size() != 1) t.shape = dims;  // the conv weight: D_R x 1 x K
        out.push_back(std::move(t));
      } else {
        out.push_back(matrixTensor(p + name, x));
      }
    };
    forEachBlockTensor(model, add, b);
  }
  out.push_back(matrixTensor("readout.weight", model.readoutW));
  out.push_back(vectorTensor("readout.bias", model.readoutB));
  return out;
}

nlohmann::json hawkMetadata(const HawkModel<Exact>& model) {
  nlohmann::json meta;
  meta["residual"] = model.residual;
  meta["norm"] = "none";
  meta["conv_width"] = model.convWidth;
  meta["lru_c"] = model.lruC;
  meta["lru_base"] = "relu";
  meta["D"] = model.D;
  meta["D_R"] = model.DR;
  meta["M"] = model.M;
  meta["max_seq_len"] = model.maxSeqLen > 0 ? nlohmann::json(model.maxSeqLen) : nlohmann::json();
  nlohmann::json blocks = nlohmann::json::array();
  for (size_t k = 0; k < model.blocks.size(); ++k) {
    const HawkBlock<Exact>& b = model.blocks[k];
    blocks.push_back({{"index", k},
                      {"channels_used", b.channelsUsed},
                      {"mlp_channels_used", b.mlpChannelsUsed},
                      {"role", b.role},
                      {"mlp_role", b.mlpRole},
                      {"nf_layer", b.nfLayer}});
  }
  meta["blocks"] = std::move(blocks);
  return meta;
}

HawkModel<double> hawkFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  const std::string& where = tensors.where();
  HawkModel<double> m;
  m.inputDim = metaInt(meta, "d_in", where);
  m.D = metaInt(meta, "D", where);
  m.DR = metaInt(meta, "D_R", where);
  m.M = metaInt(meta, "M", where);
  m.convWidth = metaInt(meta, "conv_width", where);
  m.residual = metaBool(meta, "residual", where);
  m.lruC = metaInt(meta, "lru_c", where);
  if (metaString(meta, "lru_base", where) != "relu") {
    throw Error(where + ": hawk lru_base must be \"relu\"");
  }
  m.maxSeqLen = meta.contains("max_seq_len") && !meta["max_seq_len"].is_null()
                    ? metaInt(meta, "max_seq_len", where, 1'000'000'000)
                    : 0;
  const int D = m.D;
  m.embed = tensors.matrix("embed.weight", D, m.inputDim);
  m.embedBias = tensors.vector("embed.bias", D);
  const size_t count = metaArray(meta, "blocks", where).size();
  for (size_t k = 0; k < count; ++k) {
    const nlohmann::json& info = meta["blocks"][k];
    const std::string p = "blocks." + std::to_string(k) + ".";
    HawkBlock<double> b;
    auto read = [&](const std::string& name, const std::vector<int64_t>& dims, auto& x) {
      if constexpr (isVector<decltype(x)>) {
        x = tensors.get(p + name, dims).data;
      } else {
        x = tensors.matrix(p + name, static_cast<int>(dims[0]), static_cast<int>(dims[1]));
      }
    };
    forEachBlockTensor(m, read, b);
    b.role = metaString(info, "role", where);
    b.mlpRole = metaString(info, "mlp_role", where);
    b.nfLayer = metaInt(info, "nf_layer", where);
    b.channelsUsed = metaInt(info, "channels_used", where);
    b.mlpChannelsUsed = metaInt(info, "mlp_channels_used", where);
    m.blocks.push_back(std::move(b));
  }
  const int dOut = metaInt(meta, "d_out", where);
  m.readoutW = tensors.matrix("readout.weight", dOut, D);
  m.readoutB = tensors.vector("readout.bias", dOut);
  m.validate();
  return m;
}

}  // namespace lsrl
