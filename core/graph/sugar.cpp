// The sugar library (docs/spec/language.md §2). Every sub-expression is its own statement: C++
// leaves the evaluation order of operands unspecified, and the creation order of
// nodes (their ids) must follow the reference implementation's left-to-right order.
#include "core/graph/sugar.h"

#include <string>
#include <utility>
#include <vector>

#include "core/graph/node_reference.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

std::string describeNode(const Var& v) { return nodeReferenceText(v.id()); }

std::string describeOptional(const std::optional<Operand>& x) {
  return x ? x->describe() : std::string("none");
}

std::string describeOptional(const std::optional<Var>& x) {
  return x ? describeNode(*x) : std::string("none");
}

std::string describeVector(const ExactVector& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += v[i].toString();
  }
  return s + "]";
}

void requireValid(const Var& v, const char* fn, const char* param) {
  if (!v.valid()) {
    throw Error(std::string(fn) + ": parameter '" + param + "' is not a node of a graph");
  }
}

void requireSameGraph(const Var& a, const Var& b, const char* fn) {
  if (&a.graph() != &b.graph()) {
    throw Error(std::string(fn) + ": node " + std::to_string(a.id()) + " and node " +
                std::to_string(b.id()) + " belong to two different graphs");
  }
}

// Both operands are nodes: their widths must agree.
void requireSameWidth(const Var& a, const char* aName, const Var& b, const char* bName,
                      const char* fn) {
  requireSameGraph(a, b, fn);
  if (a.dim() != b.dim()) {
    throw Error(std::string(fn) + ": dimension mismatch: " + aName + " (node " +
                std::to_string(a.id()) + ") has width " + std::to_string(a.dim()) + ", " + bName +
                " (node " + std::to_string(b.id()) + ") has width " + std::to_string(b.dim()));
  }
}

void requireSameWidth(const Var& a, const char* aName, const std::optional<Operand>& b,
                      const char* bName, const char* fn) {
  if (b && b->isVar()) requireSameWidth(a, aName, b->var(), bName, fn);
}

void requirePositive(const Exact& v, const char* fn, const char* param) {
  if (v.sign() <= 0) {
    throw Error(std::string(fn) + ": " + param + " must be positive, got " + v.toString());
  }
}

// The graph shared by two operands (at least one must be a node).
Graph& graphOf(const Operand& a, const Operand& b, const char* fn) {
  if (a.isVar() && b.isVar()) requireSameGraph(a.var(), b.var(), fn);
  if (a.isVar()) return a.var().graph();
  if (b.isVar()) return b.var().graph();
  throw Error(std::string(fn) + ": at least one operand must be a node, got the constants " +
              a.constant().toString() + " and " + b.constant().toString());
}

// x + y with y a node (Concat+Linear) or a constant (one Linear).
Var addOperand(const Var& x, const Operand& y) {
  if (y.isVar()) return x + y.var();
  return x + y.constant();
}

Var finish(GroupScope& scope, const Var& r) { return Var(&r.graph(), scope.finish(r.id())); }

}  // namespace

std::string Operand::describe() const {
  if (isVar()) return describeNode(var_);
  return constant_.toString();
}

Var subtract(const Operand& a, const Operand& b) {
  if (a.isVar() && b.isVar()) {
    requireSameWidth(a.var(), "left operand", b.var(), "right operand", "subtract");
    return a.var() - b.var();
  }
  if (a.isVar()) return a.var() - b.constant();
  if (b.isVar()) return a.constant() - b.var();
  throw Error("subtract: at least one operand must be a node, got the constants " +
              a.constant().toString() + " and " + b.constant().toString());
}

Var f_constant(const Var& x, const ExactVector& value) {
  requireValid(x, "f_constant", "input");
  if (value.empty()) throw Error("f_constant: the value must have at least one entry, got none");
  GroupScope scope(x.graph(), "f_constant",
                   Params{{"input", describeNode(x)}, {"value", describeVector(value)}});
  const int rows = static_cast<int>(value.size());
  Var r = Linear(x, ExactMatrix(rows, x.dim()), value);
  bool positive = true;
  for (const Exact& v : value) positive = positive && v.sign() >= 0;
  if (positive) r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_step(const Var& z, const Exact& scale) {
  requireValid(z, "f_step", "input");
  requirePositive(scale, "f_step", "scale");
  GroupScope scope(z.graph(), "f_step",
                   Params{{"input", describeNode(z)}, {"scale", scale.toString()}});
  // ReLU(μ·z) − μ·ReLU(z − 1/μ)
  const Var scaled = z * scale;
  const Var rising = ReLU(scaled);
  const Var shifted = z - Exact(1) / scale;
  const Var over = ReLU(shifted);
  const Var overScaled = scale * over;
  Var r = rising - overScaled;
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_bump(const Var& z, const Operand& lb, const Operand& ub, const Exact& scale) {
  requireValid(z, "f_bump", "input");
  requirePositive(scale, "f_bump", "scale");
  if (lb.isVar() != ub.isVar()) {
    throw Error("f_bump: the lower and upper bounds must be both nodes or both numbers, got lb = " +
                lb.describe() + " and ub = " + ub.describe());
  }
  if (lb.isVar()) {
    requireSameWidth(z, "input", lb.var(), "lb", "f_bump");
    requireSameWidth(z, "input", ub.var(), "ub", "f_bump");
  }
  GroupScope scope(z.graph(), "f_bump",
                   Params{{"input", describeNode(z)},
                          {"lb", lb.describe()},
                          {"ub", ub.describe()},
                          {"scale", scale.toString()}});
  const Var belowLb = subtract(z, lb);
  const Var aboveLb = f_step(belowLb, scale);
  const Var belowUb = subtract(z, ub);
  const Var aboveUb = f_step(belowUb, scale);
  Var r = aboveLb - aboveUb;
  r.setAlwaysPositive();
  return finish(scope, r);
}

namespace {

// step(a − b), the body of f_larger and f_smaller.
Var comparison(const char* fn, const Operand& x, const Operand& y, const Operand& a,
               const Operand& b, const Exact& scale) {
  Graph& g = graphOf(x, y, fn);
  requirePositive(scale, fn, "scale");
  if (x.isVar() && y.isVar()) requireSameWidth(x.var(), "x", y.var(), "y", fn);
  GroupScope scope(g, fn,
                   Params{{"x", x.describe()}, {"y", y.describe()}, {"scale", scale.toString()}});
  const Var diff = subtract(a, b);
  Var r = f_step(diff, scale);
  r.setAlwaysPositive();
  return finish(scope, r);
}

}  // namespace

Var f_larger(const Operand& x, const Operand& y, const Exact& scale) {
  return comparison("f_larger", x, y, x, y, scale);
}

Var f_smaller(const Operand& x, const Operand& y, const Exact& scale) {
  return comparison("f_smaller", x, y, y, x, scale);
}

namespace {

// step(x − y) + step(y − x): 1 where x and y differ by at least 1/scale (f_eq, f_neq).
Var eitherStep(const Operand& x, const Operand& y, const Exact& scale) {
  const Var larger = f_step(subtract(x, y), scale);
  const Var smaller = f_step(subtract(y, x), scale);
  return larger + smaller;
}

}  // namespace

Var f_eq(const Operand& x, const Operand& y, const Exact& scale) {
  Graph& g = graphOf(x, y, "f_eq");
  requirePositive(scale, "f_eq", "scale");
  if (x.isVar() && y.isVar()) requireSameWidth(x.var(), "x", y.var(), "y", "f_eq");
  GroupScope scope(g, "f_eq",
                   Params{{"x", x.describe()}, {"y", y.describe()}, {"scale", scale.toString()}});
  // step(−1·(step(x − y) + step(y − x) − 1))
  const Var either = eitherStep(x, y, scale);
  const Var shifted = either - Exact(1);
  const Var negated = Exact(-1) * shifted;
  Var r = f_step(negated, scale);
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_neq(const Operand& x, const Operand& y, const Exact& scale) {
  Graph& g = graphOf(x, y, "f_neq");
  requirePositive(scale, "f_neq", "scale");
  if (x.isVar() && y.isVar()) requireSameWidth(x.var(), "x", y.var(), "y", "f_neq");
  GroupScope scope(g, "f_neq",
                   Params{{"x", x.describe()}, {"y", y.describe()}, {"scale", scale.toString()}});
  // step(step(x − y) + step(y − x))
  const Var either = eitherStep(x, y, scale);
  Var r = f_step(either, scale);
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_not(const Var& x) {
  requireValid(x, "f_not", "x");
  GroupScope scope(x.graph(), "f_not", Params{{"x", describeNode(x)}});
  Var r = Exact(1) - x;
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_and(const Var& x, const Var& y, const Exact& scale) {
  requireValid(x, "f_and", "x");
  requireValid(y, "f_and", "y");
  requirePositive(scale, "f_and", "scale");
  requireSameWidth(x, "x", y, "y", "f_and");
  GroupScope scope(
      x.graph(), "f_and",
      Params{{"x", describeNode(x)}, {"y", describeNode(y)}, {"scale", scale.toString()}});
  // ReLU(step(x) + step(y) − 1)
  const Var sx = f_step(x, scale);
  const Var sy = f_step(y, scale);
  const Var both = sx + sy;
  const Var shifted = both - Exact(1);
  Var r = ReLU(shifted);
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_or(const Var& x, const Var& y, const Exact& scale) {
  requireValid(x, "f_or", "x");
  requireValid(y, "f_or", "y");
  requirePositive(scale, "f_or", "scale");
  requireSameWidth(x, "x", y, "y", "f_or");
  GroupScope scope(
      x.graph(), "f_or",
      Params{{"x", describeNode(x)}, {"y", describeNode(y)}, {"scale", scale.toString()}});
  // step(x + y)
  const Var sum = x + y;
  Var r = f_step(sum, scale);
  r.setAlwaysPositive();
  return finish(scope, r);
}

namespace {

// ReLU(gate ± value): the gate is a fresh node (≤ 0 where the branch is off).
Var gatedTerm(const Var& gate, const Operand& value, bool plus) {
  const Var inner = plus ? addOperand(gate, value) : subtract(gate, value);
  return ReLU(inner);
}

void requireBranches(const std::optional<Operand>& t, const std::optional<Operand>& f,
                     const char* fn) {
  if (!t && !f) throw Error(std::string(fn) + ": at least one of t_val and f_val must be given");
}

}  // namespace

Var f_ifelse(const Var& c, const std::optional<Operand>& t, const std::optional<Operand>& f,
             const Exact& largeConstant) {
  requireValid(c, "f_ifelse", "condition");
  requireBranches(t, f, "f_ifelse");
  requireSameWidth(c, "condition", t, "t_val", "f_ifelse");
  requireSameWidth(c, "condition", f, "f_val", "f_ifelse");
  requirePositive(largeConstant, "f_ifelse", "large_constant");
  GroupScope scope(c.graph(), "f_ifelse",
                   Params{{"condition", describeNode(c)},
                          {"t_val", describeOptional(t)},
                          {"f_val", describeOptional(f)},
                          {"large_constant", largeConstant.toString()}});
  const Exact minusLambda = -largeConstant;
  // Terms for f: ReLU(−λc ± f); terms for t: ReLU(−λ(1 − c) ± t). Each builds its own gate.
  auto fTerm = [&](bool plus) {
    const Var gate = c * minusLambda;
    return gatedTerm(gate, *f, plus);
  };
  auto tTerm = [&](bool plus) {
    const Var notC = f_not(c);
    const Var gate = notC * minusLambda;
    return gatedTerm(gate, *t, plus);
  };
  if (!t) {
    const Var t1 = fTerm(true);
    const Var t3 = fTerm(false);
    return finish(scope, t1 - t3);
  }
  if (!f) {
    const Var t2 = tTerm(true);
    const Var t4 = tTerm(false);
    return finish(scope, t2 - t4);
  }
  const Var t1 = fTerm(true);
  const Var t2 = tTerm(true);
  const Var s12 = t1 + t2;
  const Var t3 = fTerm(false);
  const Var s123 = s12 - t3;
  const Var t4 = tTerm(false);
  return finish(scope, s123 - t4);
}

Var f_ifelse_step(const Var& c, const std::optional<Operand>& t, const std::optional<Operand>& f,
                  const Exact& largeConstant, const Exact& scale) {
  requireValid(c, "f_ifelse_step", "condition");
  requireBranches(t, f, "f_ifelse_step");
  requireSameWidth(c, "condition", t, "t_val", "f_ifelse_step");
  requireSameWidth(c, "condition", f, "f_val", "f_ifelse_step");
  requirePositive(largeConstant, "f_ifelse_step", "large_constant");
  requirePositive(scale, "f_ifelse_step", "scale");
  GroupScope scope(c.graph(), "f_ifelse_step",
                   Params{{"condition", describeNode(c)},
                          {"t_val", describeOptional(t)},
                          {"f_val", describeOptional(f)},
                          {"large_constant", largeConstant.toString()},
                          {"scale", scale.toString()}});
  const Exact half = Exact::rational(1, 2);
  // ReLU(−λ + λ·step(±(c − ½)) ± value), each term with its own gate.
  auto term = [&](bool forT, bool plus) {
    const Var centred = forT ? c - half : half - c;
    const Var open = f_step(centred, scale);
    const Var scaled = largeConstant * open;
    const Var gate = -largeConstant + scaled;
    return gatedTerm(gate, forT ? *t : *f, plus);
  };
  if (!t) {
    const Var t1 = term(false, true);
    const Var t3 = term(false, false);
    return finish(scope, t1 - t3);
  }
  if (!f) {
    const Var t2 = term(true, true);
    const Var t4 = term(true, false);
    return finish(scope, t2 - t4);
  }
  const Var t1 = term(false, true);
  const Var t2 = term(true, true);
  const Var s12 = t1 + t2;
  const Var t3 = term(false, false);
  const Var s123 = s12 - t3;
  const Var t4 = term(true, false);
  return finish(scope, s123 - t4);
}

Var f_ifelse_mul(const Var& c, const std::optional<Var>& t, const std::optional<Var>& f) {
  requireValid(c, "f_ifelse_mul", "condition");
  if (!t && !f) throw Error("f_ifelse_mul: at least one of t_val and f_val must be given");
  if (t) {
    requireValid(*t, "f_ifelse_mul", "t_val");
    requireSameWidth(c, "condition", *t, "t_val", "f_ifelse_mul");
  }
  if (f) {
    requireValid(*f, "f_ifelse_mul", "f_val");
    requireSameWidth(c, "condition", *f, "f_val", "f_ifelse_mul");
  }
  GroupScope scope(c.graph(), "f_ifelse_mul",
                   Params{{"condition", describeNode(c)},
                          {"t_val", describeOptional(t)},
                          {"f_val", describeOptional(f)}});
  if (!t) {
    const Var notC = f_not(c);
    const Var both = Concat({notC, *f});
    return finish(scope, Multi(both));
  }
  if (!f) {
    const Var both = Concat({c, *t});
    return finish(scope, Multi(both));
  }
  const int d = c.dim();
  const Var notC = f_not(c);
  const Var all = Concat({c, notC, *t, *f});
  const Var products = Multi(all);
  const Var r =
      Linear(products, ExactMatrix::hstack({ExactMatrix::identity(d), ExactMatrix::identity(d)}),
             zerosVector(d));
  return finish(scope, r);
}

Var f_ifeq(const Operand& x, const Operand& y, const std::optional<Operand>& t,
           const std::optional<Operand>& f, const Exact& scale, const Exact& largeConstant) {
  Graph& g = graphOf(x, y, "f_ifeq");
  requireBranches(t, f, "f_ifeq");
  GroupScope scope(g, "f_ifeq",
                   Params{{"x", x.describe()},
                          {"y", y.describe()},
                          {"t_val", describeOptional(t)},
                          {"f_val", describeOptional(f)},
                          {"scale", scale.toString()},
                          {"large_constant", largeConstant.toString()}});
  const Var equal = f_eq(x, y, scale);
  return finish(scope, f_ifelse(equal, t, f, largeConstant));
}

Var f_modulo_counter(const Var& x, int n, const Exact& scale) {
  requireValid(x, "f_modulo_counter", "dummy_input");
  if (n < 1) throw Error("f_modulo_counter: divisor must be at least 1, got " + std::to_string(n));
  requirePositive(scale, "f_modulo_counter", "scale");
  // Neighbouring positions of the rotating unit vector have dot product cos(2π/n); the
  // threshold cos(π/n) sits halfway, so the step at it is exact iff μ(1 − cos(π/n)) ≥ 1.
  const Exact threshold = Exact::cosPi(1, n);
  const Exact gap = Exact(1) - threshold;
  if (scale * gap < Exact(1)) {
    Exact mu(1);
    int power = 0;
    while (mu * gap < Exact(1)) {
      mu *= Exact(10);
      ++power;
    }
    std::string smallest = "1";
    for (int i = 0; i < power; ++i) smallest += "0";
    throw Error("f_modulo_counter: divisor " + std::to_string(n) +
                " needs a step scale mu with mu * (1 - cos(pi/" + std::to_string(n) +
                ")) >= 1 for an exact one-hot, i.e. mu >= " + std::to_string(1.0 / gap.toDouble()) +
                ", but mu = " + scale.toString() +
                "; the smallest power of ten that works is mu = " + smallest + " (1e" +
                std::to_string(power) + ")");
  }
  GroupScope scope(x.graph(), "f_modulo_counter",
                   Params{{"dummy_input", describeNode(x)},
                          {"divisor", std::to_string(n)},
                          {"scale", scale.toString()}});
  // R = rotation by 2π/n; the state starts at R⁻¹e₁ so that its first value is e₁.
  const Exact c = Exact::cosPi(2, n);
  const Exact s = Exact::sinPi(2, n);
  const ExactMatrix R = ExactMatrix::fromDense({{c, -s}, {s, c}}, 2);
  const ExactVector init = {c, -s};
  const Var cycler = LinState(x, R, ExactMatrix(2, x.dim()), init);
  std::vector<ExactVector> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) rows.push_back({Exact::cosPi(2LL * i, n), Exact::sinPi(2LL * i, n)});
  const Var indicator = Linear(cycler, ExactMatrix::fromDense(rows, 2), zerosVector(n));
  const Var oneHot = f_larger(indicator, threshold, scale);
  ExactVector positions;
  positions.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) positions.emplace_back(i);
  Var r = Linear(oneHot, ExactMatrix::fromDense({positions}, n), zerosVector(1));
  r.setAlwaysPositive();
  return finish(scope, r);
}

Var f_relu_identity(const Var& x) {
  requireValid(x, "f_relu_identity", "x");
  GroupScope scope(x.graph(), "f_relu_identity", Params{{"x", describeNode(x)}});
  // [I, −I]·Concat([ReLU(x), ReLU(−x)]) = x
  const int d = x.dim();
  const Var pos = ReLU(x);
  const Var negX = -x;
  const Var neg = ReLU(negX);
  const Var both = Concat({pos, neg});
  const Var r = Linear(
      both, ExactMatrix::hstack({ExactMatrix::identity(d), ExactMatrix::identity(d, Exact(-1))}),
      zerosVector(d));
  return finish(scope, r);
}

}  // namespace lsrl
