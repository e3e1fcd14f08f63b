#include "core/targets/normal_form.h"

#include <algorithm>
#include <utility>

#include "core/graph/node_description.h"
#include "core/targets/sparse_ops.h"
#include "core/util/error.h"

namespace lsrl {

// ---------------------------------------------------------------------------------
// FloatMatrix

FloatMatrix::FloatMatrix(int rows, int cols)
    : rows_(rows), cols_(cols), rowStart_(static_cast<size_t>(rows) + 1, 0) {}

FloatMatrix FloatMatrix::fromEntries(int rows, int cols, std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  FloatMatrix out(rows, cols);
  size_t i = 0;
  for (int r = 0; r < rows; ++r) {
    while (i < entries.size() && entries[i].row == r) {
      const int c = entries[i].col;
      if (c < 0 || c >= cols) throw Error("FloatMatrix: column out of range");
      double sum = 0;
      while (i < entries.size() && entries[i].row == r && entries[i].col == c) {
        sum += entries[i].value;
        ++i;
      }
      if (sum != 0) {
        out.colIndex_.push_back(c);
        out.values_.push_back(sum);
      }
    }
    out.rowStart_[static_cast<size_t>(r) + 1] = static_cast<int64_t>(out.values_.size());
  }
  if (i != entries.size()) throw Error("FloatMatrix: row out of range");
  return out;
}

FloatMatrix FloatMatrix::fromExact(const ExactMatrix& m) {
  FloatMatrix out(m.rows(), m.cols());
  out.rowStart_ = m.rowStart();
  out.colIndex_ = m.colIndex();
  out.values_.reserve(m.values().size());
  for (const Exact& v : m.values()) out.values_.push_back(v.toDouble());
  return out;
}

double FloatMatrix::at(int row, int col) const {
  for (int64_t k = rowStart_[static_cast<size_t>(row)]; k < rowStart_[static_cast<size_t>(row) + 1];
       ++k) {
    if (colIndex_[static_cast<size_t>(k)] == col) return values_[static_cast<size_t>(k)];
  }
  return 0;
}

std::vector<FloatMatrix::Entry> FloatMatrix::entries() const {
  std::vector<Entry> out;
  out.reserve(values_.size());
  for (int r = 0; r < rows_; ++r) {
    for (int64_t k = rowStart_[static_cast<size_t>(r)]; k < rowStart_[static_cast<size_t>(r) + 1];
         ++k) {
      out.push_back({r, colIndex_[static_cast<size_t>(k)], values_[static_cast<size_t>(k)]});
    }
  }
  return out;
}

std::vector<double> FloatMatrix::dense() const {
  std::vector<double> out(static_cast<size_t>(rows_) * static_cast<size_t>(cols_), 0.0);
  for (const Entry& e : entries()) {
    out[static_cast<size_t>(e.row) * static_cast<size_t>(cols_) + static_cast<size_t>(e.col)] =
        e.value;
  }
  return out;
}

const char* stateUpdateName(StateUpdate u) { return u == StateUpdate::Relu ? "relu" : "linear"; }

template <class S>
int NfLayer<S>::outputDim() const {
  if (!f.empty()) return f.back().W.rows();
  return stateDim();
}

template struct NfLayer<double>;
template struct NfLayer<Exact>;

template <class S>
void NfModel<S>::validate() const {
  auto fail = [](const std::string& what) { throw Error("normal form: " + what); };
  int dIn = inputDim;
  for (size_t l = 0; l < layers.size(); ++l) {
    const NfLayer<S>& L = layers[l];
    const std::string at = "layer " + std::to_string(l) + ": ";
    const int ds = L.A.rows();
    if (L.A.cols() != ds) fail(at + "state.A is not square");
    if (L.B.rows() != ds || L.B.cols() != dIn) {
      fail(at + "state.B is " + std::to_string(L.B.rows()) + "x" + std::to_string(L.B.cols()) +
           ", expected " + std::to_string(ds) + "x" + std::to_string(dIn));
    }
    if (static_cast<int>(L.bias.size()) != ds) fail(at + "state.bias has the wrong length");
    if (static_cast<int>(L.s0.size()) != ds) fail(at + "state.s0 has the wrong length");
    auto checkBranch = [&](const std::vector<NfReluLayer<S>>& br, const char* name) {
      int w = ds;
      for (size_t k = 0; k < br.size(); ++k) {
        if (br[k].W.cols() != w || static_cast<int>(br[k].b.size()) != br[k].W.rows()) {
          fail(at + name + "." + std::to_string(k) + " has inconsistent shape");
        }
        w = br[k].W.rows();
      }
      return w;
    };
    const int wf = checkBranch(L.f, "f");
    if (L.gated) {
      if (L.g.empty()) fail(at + "gated layer without g branch");
      const int wg = checkBranch(L.g, "g");
      if (wg != wf) fail(at + "f and g branches have different output widths");
    } else if (!L.g.empty()) {
      fail(at + "ungated layer with a g branch");
    }
    dIn = wf;
  }
  if (readoutW.cols() != dIn) fail("readout.weight has the wrong number of columns");
  if (static_cast<int>(readoutB.size()) != readoutW.rows())
    fail("readout.bias has the wrong length");
}

template struct NfModel<double>;
template struct NfModel<Exact>;

// ---------------------------------------------------------------------------------
// Path validation

std::vector<NodeId> pathNodes(const Graph& path) {
  if (path.output() == kNoNode) throw Error("path graph: no output node set");
  const std::vector<NodeId> order = path.topologicalOrder();
  if (order.empty()) throw Error("path graph: empty program");
  const Node& first = path.node(order.front());
  if (first.op != Op::Input) {
    throw Error("path graph: " + describeNode(first) +
                " comes first; a path starts with its Input");
  }
  std::vector<NodeId> out;
  for (size_t i = 1; i < order.size(); ++i) {
    const Node& n = path.node(order[i]);
    if (n.op == Op::Input) throw Error("path graph: second Input " + describeNode(n));
    if (n.inputs.size() != 1) {
      throw Error("path graph: " + describeNode(n) + " has " + std::to_string(n.inputs.size()) +
                  " inputs; a path node has exactly one");
    }
    if (n.inputs.front() != order[i - 1]) {
      throw Error("path graph: " + describeNode(n) + " reads node " +
                  std::to_string(n.inputs.front()) + " instead of its predecessor node " +
                  std::to_string(order[i - 1]) + " (the graph branches)");
    }
    out.push_back(n.id);
  }
  if (order.back() != path.output()) {
    throw Error("path graph: the output node " + std::to_string(path.output()) +
                " is not the end of the chain");
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Path → NF (docs/spec/targets.md §1.3)

namespace {

using EM = ExactMatrix;
using EV = ExactVector;

EV orZeros(const EV& v, int n) { return v.empty() ? zerosVector(n) : v; }

EV add(EV a, const EV& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

EV negated(EV a) {
  for (Exact& x : a) x = -x;
  return a;
}

EV concat(EV a, const EV& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

EV sliceVec(const EV& v, int start, int end) { return EV(v.begin() + start, v.begin() + end); }

EM negated(const EM& m) { return m.scaled(Exact(-1)); }

EM rowsOf(const EM& m, int start, int end) { return EM::selection(start, end, m.rows()) * m; }

bool nonNegative(const EM& m) {
  return std::all_of(m.values().begin(), m.values().end(),
                     [](const Exact& x) { return x.sign() >= 0; });
}

bool nonNegative(const EV& v) {
  return std::all_of(v.begin(), v.end(), [](const Exact& x) { return x.sign() >= 0; });
}

enum class Anchor { Input, State, Hidden };

struct Term {
  int sign;
  EM M;
  EV m;
};

class NfCompiler {
 public:
  explicit NfCompiler(int dIn) {
    model_.inputDim = dIn;
    M_ = EM::identity(dIn);
    m_ = zerosVector(dIn);
  }

  void visit(const Node& n) {
    switch (n.op) {
      case Op::Linear:  // P1 / Q1
        m_ = add(n.A * m_, orZeros(n.b, n.A.rows()));
        M_ = n.A * M_;
        return;
      case Op::Concat:  // single input: the identity
        return;
      case Op::LinState:
        if (!post_) {
          openState(n);  // P2
        } else if (anchor_ == Anchor::State) {
          mergeState(n);  // Q3
        } else {
          closeUngated();  // Q4
          openState(n);
        }
        return;
      case Op::ReLU:
        if (!post_) passThrough();   // P3
        trunk_.push_back({M_, m_});  // Q2
        anchor_ = Anchor::Hidden;
        M_ = EM::identity(M_.rows());
        m_ = zerosVector(M_.rows());
        return;
      case Op::Multi:
        if (!post_) passThrough();  // P3
        if (M_.rows() % 2 != 0)
          throw Error("path graph: " + describeNode(n) + " has an odd input width");
        closeGated();  // Q5
        return;
      case Op::Input:
        break;
    }
    throw Error("path graph: unexpected " + describeNode(n));
  }

  NfModel<Exact> finish() {
    if (post_) closeUngated();
    model_.readoutW = M_;
    model_.readoutB = m_;
    model_.validate();
    return std::move(model_);
  }

 private:
  void enterPost(int ds) {
    post_ = true;
    anchor_ = Anchor::State;
    M_ = EM::identity(ds);
    m_ = zerosVector(ds);
    trunk_.clear();
  }

  void openState(const Node& n) {
    const int ds = n.dim;
    cur_ = NfLayer<Exact>{};
    cur_.A = n.A;
    cur_.B = n.B * M_;
    cur_.bias = add(n.B * m_, orZeros(n.bias, ds));
    cur_.s0 = orZeros(n.init, ds);
    enterPost(ds);
  }

  void passThrough() {
    const int ds = M_.rows();
    cur_ = NfLayer<Exact>{};
    cur_.A = EM(ds, ds);
    cur_.B = M_;
    cur_.bias = m_;
    cur_.s0 = zerosVector(ds);
    enterPost(ds);
  }

  void mergeState(const Node& n) {
    const int d1 = cur_.A.rows();
    const int d2 = n.dim;
    const EM C = n.B * M_;
    const EM CA = C * cur_.A;
    cur_.A = EM::vstack({EM::hstack({cur_.A, EM(d1, d2)}), EM::hstack({CA, n.A})});
    const EM CB = C * cur_.B;
    cur_.B = EM::vstack({cur_.B, CB});
    const EV b2 = add(add(C * cur_.bias, n.B * m_), orZeros(n.bias, d2));
    cur_.bias = concat(cur_.bias, b2);
    cur_.s0 = concat(cur_.s0, orZeros(n.init, d2));
    M_ = EM::hstack({EM(d2, d1), EM::identity(d2)});
    m_ = zerosVector(d2);
  }

  void closeUngated() {
    cur_.gated = false;
    if (anchor_ == Anchor::Hidden) {
      cur_.f = trunk_;  // the trailing affine map (M, m) leaves the layer
    } else {
      const int k = M_.rows();
      cur_.f = {{EM::vstack({M_, negated(M_)}), concat(m_, negated(m_))}};
      M_ = EM::hstack({EM::identity(k), EM::identity(k, Exact(-1))});
      m_ = zerosVector(k);
    }
    endLayer();
  }

  std::vector<Term> terms(const EM& M, const EV& m) const {
    std::vector<Term> out{{1, M, m}};
    if (!(anchor_ == Anchor::Hidden && nonNegative(M) && nonNegative(m))) {
      out.push_back({-1, negated(M), negated(m)});
    }
    return out;
  }

  void closeGated() {
    const int k = M_.rows() / 2;
    const std::vector<Term> t1 = terms(rowsOf(M_, 0, k), sliceVec(m_, 0, k));
    const std::vector<Term> t2 = terms(rowsOf(M_, k, 2 * k), sliceVec(m_, k, 2 * k));
    std::vector<EM> fRows, gRows, out;
    EV fBias, gBias;
    for (const Term& a : t1) {
      for (const Term& b : t2) {
        fRows.push_back(a.M);
        fBias = concat(std::move(fBias), a.m);
        gRows.push_back(b.M);
        gBias = concat(std::move(gBias), b.m);
        out.push_back(EM::identity(k, Exact(a.sign * b.sign)));
      }
    }
    cur_.gated = true;
    cur_.f = trunk_;
    cur_.f.push_back({EM::vstack(fRows), std::move(fBias)});
    cur_.g = trunk_;
    cur_.g.push_back({EM::vstack(gRows), std::move(gBias)});
    M_ = EM::hstack(out);
    m_ = zerosVector(k);
    endLayer();
  }

  void endLayer() {
    model_.layers.push_back(std::move(cur_));
    cur_ = NfLayer<Exact>{};
    trunk_.clear();
    post_ = false;
    anchor_ = Anchor::Input;
  }

  NfModel<Exact> model_;
  bool post_ = false;
  Anchor anchor_ = Anchor::Input;
  EM M_;
  EV m_;
  std::vector<NfReluLayer<Exact>> trunk_;
  NfLayer<Exact> cur_;
};

}  // namespace

NfModel<Exact> compileNormalForm(const Graph& path) {
  const std::vector<NodeId> nodes = pathNodes(path);
  NfCompiler c(path.node(path.input()).dim);
  for (NodeId id : nodes) c.visit(path.node(id));
  return c.finish();
}

// ---------------------------------------------------------------------------------
// Conversion and forward pass

std::vector<double> toDoubles(const ExactVector& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const Exact& x : v) out.push_back(x.toDouble());
  return out;
}

namespace {

std::vector<NfReluLayer<double>> toFloat(const std::vector<NfReluLayer<Exact>>& br) {
  std::vector<NfReluLayer<double>> out;
  for (const auto& l : br) out.push_back({FloatMatrix::fromExact(l.W), toDoubles(l.b)});
  return out;
}

using sparse_ops::affine;
using sparse_ops::relu;

template <class S>
std::vector<S> mlp(const std::vector<NfReluLayer<S>>& br, std::vector<S> z) {
  for (const auto& l : br) {
    z = affine(l.W, z, l.b);
    for (S& v : z) v = relu(v);
  }
  return z;
}

}  // namespace

NfModel<double> toFloat(const NfModel<Exact>& model) {
  NfModel<double> out;
  out.inputDim = model.inputDim;
  for (const NfLayer<Exact>& L : model.layers) {
    NfLayer<double> F;
    F.A = FloatMatrix::fromExact(L.A);
    F.B = FloatMatrix::fromExact(L.B);
    F.bias = toDoubles(L.bias);
    F.s0 = toDoubles(L.s0);
    F.update = L.update;
    F.f = toFloat(L.f);
    F.g = toFloat(L.g);
    F.gated = L.gated;
    out.layers.push_back(std::move(F));
  }
  out.readoutW = FloatMatrix::fromExact(model.readoutW);
  out.readoutB = toDoubles(model.readoutB);
  return out;
}

template <class S>
std::vector<std::vector<S>> runNormalForm(const NfModel<S>& model,
                                          const std::vector<std::vector<S>>& tokens,
                                          std::vector<std::vector<std::vector<S>>>* states) {
  model.validate();
  std::vector<std::vector<S>> state;
  for (const auto& L : model.layers) state.push_back(L.s0);
  if (states != nullptr) states->assign(model.layers.size(), {});
  std::vector<std::vector<S>> outputs;
  outputs.reserve(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    sparse_ops::requireTokenWidth("normal form", t, tokens[t], model.inputDim);
    std::vector<S> u = tokens[t];
    for (size_t l = 0; l < model.layers.size(); ++l) {
      const NfLayer<S>& L = model.layers[l];
      std::vector<S> s = sparse_ops::affine2(L.A, state[l], &L.B, &u, L.bias);
      if (L.update == StateUpdate::Relu) {
        for (S& v : s) v = relu(v);
      }
      state[l] = s;
      if (states != nullptr) (*states)[l].push_back(s);
      std::vector<S> y = mlp(L.f, s);
      if (L.gated) {
        const std::vector<S> g = mlp(L.g, s);
        for (size_t i = 0; i < y.size(); ++i) y[i] *= g[i];
      }
      u = std::move(y);
    }
    outputs.push_back(affine(model.readoutW, u, model.readoutB));
  }
  return outputs;
}

template std::vector<std::vector<double>> runNormalForm<double>(
    const NfModel<double>&, const std::vector<std::vector<double>>&,
    std::vector<std::vector<std::vector<double>>>*);
template std::vector<std::vector<Exact>> runNormalForm<Exact>(
    const NfModel<Exact>&, const std::vector<std::vector<Exact>>&,
    std::vector<std::vector<std::vector<Exact>>>*);

}  // namespace lsrl
