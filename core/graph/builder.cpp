#include "core/graph/builder.h"

#include "core/util/error.h"

namespace lsrl {

namespace {

Graph& sameGraph(const Var& x, const Var& y) {
  if (&x.graph() != &y.graph()) throw Error("cannot combine nodes of two different graphs");
  return x.graph();
}

void requireSameDim(const Var& x, const Var& y, const char* op) {
  if (x.dim() != y.dim()) {
    throw Error(std::string("dimension mismatch for ") + op + ": node " + std::to_string(x.id()) +
                " has width " + std::to_string(x.dim()) + ", node " + std::to_string(y.id()) +
                " has width " + std::to_string(y.dim()));
  }
}

// Concat([x, y]) followed by Linear([I, sy·I]).
Var combine(const Var& x, const Var& y, const Exact& sy, const char* op) {
  Graph& g = sameGraph(x, y);
  requireSameDim(x, y, op);
  const int d = x.dim();
  const NodeId both = g.addConcat({x.id(), y.id()});
  const NodeId r = g.addLinear(
      both, ExactMatrix::hstack({ExactMatrix::identity(d), ExactMatrix::identity(d, sy)}),
      zerosVector(d));
  return Var(&g, r);
}

// Linear(scale·I, offset·1) on x.
Var affine(const Var& x, const Exact& scale, const Exact& offset) {
  const int d = x.dim();
  return Var(&x.graph(),
             x.graph().addLinear(x.id(), ExactMatrix::identity(d, scale), filledVector(d, offset)));
}

}  // namespace

int Var::dim() const { return node().dim; }
const Node& Var::node() const { return g_->node(id_); }
bool Var::alwaysPositive() const { return node().alwaysPositive; }

Var& Var::setAlwaysPositive(bool v) {
  g_->mutableNode(id_).alwaysPositive = v;
  return *this;
}

Var& Var::named(std::string name) {
  g_->setName(id_, std::move(name));
  return *this;
}

Var Var::operator[](int i) const { return slice(i, i + 1); }
Var Var::slice(int start, int end) const { return Var(g_, g_->addSlice(id_, start, end)); }
Var Var::operator-() const { return Exact(-1) * *this; }

Var operator+(const Var& x, const Var& y) {
  Var r = combine(x, y, Exact(1), "sum");
  if (x.alwaysPositive() && y.alwaysPositive()) r.setAlwaysPositive();
  return r;
}

Var operator-(const Var& x, const Var& y) { return combine(x, y, Exact(-1), "difference"); }

Var operator+(const Var& x, const Exact& c) {
  Var r = affine(x, Exact(1), c);
  if (x.alwaysPositive() && c.sign() >= 0) r.setAlwaysPositive();
  return r;
}

Var operator+(const Exact& c, const Var& x) { return x + c; }
Var operator-(const Var& x, const Exact& c) { return affine(x, Exact(1), -c); }
Var operator-(const Exact& c, const Var& x) { return affine(x, Exact(-1), c); }

Var operator*(const Var& x, const Exact& c) {
  Var r = affine(x, c, Exact(0));
  if (x.alwaysPositive() && c.sign() >= 0) r.setAlwaysPositive();
  return r;
}

Var operator*(const Exact& c, const Var& x) { return x * c; }

Var operator/(const Var& x, const Exact& c) {
  if (c.isZero()) {
    throw Error("division by zero: node " + std::to_string(x.id()) + " divided by 0");
  }
  return x * (Exact(1) / c);
}

Var Input(Graph& g, int dim, std::string name) { return Var(&g, g.addInput(dim, std::move(name))); }

Var Linear(const Var& x, ExactMatrix A, ExactVector b, std::string name) {
  return Var(&x.graph(), x.graph().addLinear(x.id(), std::move(A), std::move(b), std::move(name)));
}

Var ReLU(const Var& x, std::string name) {
  return Var(&x.graph(), x.graph().addReLU(x.id(), std::move(name)));
}

Var LinState(const Var& x, ExactMatrix A, ExactMatrix B, ExactVector init, ExactVector bias,
             std::string name) {
  return Var(&x.graph(), x.graph().addLinState(x.id(), std::move(A), std::move(B), std::move(init),
                                               std::move(bias), std::move(name)));
}

Var Concat(const std::vector<Var>& xs, std::string name) {
  if (xs.empty()) throw Error("Concat needs at least one input, got none");
  std::vector<NodeId> ids;
  for (const Var& x : xs) {
    sameGraph(xs.front(), x);
    ids.push_back(x.id());
  }
  return Var(&xs.front().graph(), xs.front().graph().addConcat(std::move(ids), std::move(name)));
}

Var Multi(const Var& x, std::string name) {
  return Var(&x.graph(), x.graph().addMulti(x.id(), std::move(name)));
}

}  // namespace lsrl
