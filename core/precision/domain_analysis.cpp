#include "core/precision/domain_analysis.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "core/graph/node_reference.h"
#include "core/graph/sugar_replay.h"
#include "core/numbers/exact_field.h"
#include "core/precision/group_tree.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using Ranges = std::vector<ValueRange>;

std::string nodeText(NodeId id) { return "node " + std::to_string(id); }

// The row-wise affine map x ↦ M·x + offset over ranges.
Ranges affineRows(const ExactMatrix& M, const Ranges& x, const ExactVector& offset) {
  if (static_cast<size_t>(M.cols()) != x.size())
    throw Error("internal error: a matrix with " + std::to_string(M.cols()) +
                " columns applied to " + std::to_string(x.size()) + " values");
  Ranges out;
  out.reserve(static_cast<size_t>(M.rows()));
  std::vector<AffineTerm> terms;
  for (int r = 0; r < M.rows(); ++r) {
    terms.clear();
    for (int64_t k = M.rowStart()[static_cast<size_t>(r)];
         k < M.rowStart()[static_cast<size_t>(r) + 1]; ++k) {
      terms.push_back({M.values()[static_cast<size_t>(k)],
                       &x[static_cast<size_t>(M.colIndex()[static_cast<size_t>(k)])]});
    }
    out.push_back(affine(terms, offset.empty() ? Exact(0) : offset[static_cast<size_t>(r)]));
  }
  return out;
}

bool isDiagonal(const ExactMatrix& A) {
  for (const auto& e : A.entries()) {
    if (e.row != e.col) return false;
  }
  return true;
}

bool isIntegerMatrix(const ExactMatrix& A) {
  for (const Exact& v : A.values()) {
    if (!v.isInteger()) return false;
  }
  return true;
}

// The grid every state component lies on when A is an integer matrix: every update and
// initial value is a multiple of it. None when something is irrational or off-grid.
std::optional<mpq_class> commonStep(const Ranges& u, const ExactVector& init) {
  mpq_class step = 0;
  for (const ValueRange& r : u) {
    if (!r.onGrid) return std::nullopt;
    step = rationalGcd(rationalGcd(step, r.offset), r.step);
  }
  for (const Exact& s : init) {
    if (!s.isRational()) return std::nullopt;
    step = rationalGcd(step, s.toRational());
  }
  return step;
}

ValueRange hull(const std::optional<ValueRange>& a, const ValueRange& b) {
  return a ? join(*a, b) : b;
}

// When the analysis gives up: exact numbers can grow with every step of a recurrence
// (powers of 1/3), which no count of steps bounds.
struct Deadline {
  std::chrono::steady_clock::time_point end;
  double seconds = 0;
  void check(NodeId node, int t, int T) const {
    if ((t & 63) == 0 && std::chrono::steady_clock::now() > end)
      throw Error(nodeText(node) + ": bounding this LinState over " + std::to_string(T) +
                  " steps took more than " + std::to_string(static_cast<int>(seconds)) +
                  " s (stopped at step " + std::to_string(t) + "); declare a shorter horizon");
  }
};

// s_t = a·s_{t-1} + u_t for one component, 1 ≤ t ≤ T.
ValueRange scalarState(const Exact& a, const Exact& s0, const ValueRange& u, int T, NodeId node,
                       const Deadline& deadline) {
  if (a.isZero()) return u;
  if (a.isOne()) {
    const Exact t(T);
    const Exact lo = s0 + std::min(u.lo, t * u.lo);
    const Exact hi = s0 + std::max(u.hi, t * u.hi);
    if (u.onGrid && s0.isRational())
      return ValueRange::grid(lo, hi, s0.toRational(), rationalGcd(u.offset, u.step));
    return ValueRange::interval(lo, hi);
  }
  if (T > 100'000)
    throw Error("a LinState with a diagonal entry " + a.toString() +
                " cannot be bounded over a horizon above 100000 steps");
  Exact lo = s0;
  Exact hi = s0;
  std::optional<ValueRange> all;
  for (int t = 1; t <= T; ++t) {
    deadline.check(node, t, T);
    const Exact p = a * lo;
    const Exact q = a * hi;
    lo = std::min(p, q) + u.lo;
    hi = std::max(p, q) + u.hi;
    all = hull(all, ValueRange::interval(lo, hi));
  }
  if (a.isInteger() && u.onGrid && s0.isRational()) {
    const mpq_class step = rationalGcd(rationalGcd(s0.toRational(), u.offset), u.step);
    return ValueRange::grid(all->lo, all->hi, 0, step);
  }
  return *all;
}

// Every value of s_t = A s_{t-1} + u_t, 1 ≤ t ≤ T, s_0 = init, u_t independent in `u`:
// A^t s_0 + Σ_{k<t} A^k u, bounded per power (tight for independent inputs).
Ranges stateRanges(const Node& n, const Ranges& u, int T, const Deadline& deadline) {
  const ExactMatrix& A = n.A;
  const int d = n.dim;
  ExactVector init = n.init.empty() ? ExactVector(static_cast<size_t>(d)) : n.init;
  Ranges out;
  if (isDiagonal(A)) {
    for (int i = 0; i < d; ++i)
      out.push_back(scalarState(A.at(i, i), init[static_cast<size_t>(i)], u[static_cast<size_t>(i)],
                                T, n.id, deadline));
    return out;
  }
  if (static_cast<double>(d) * d * d * T > 1e7)
    throw Error(nodeText(n.id) + ": a LinState of width " + std::to_string(d) +
                " with a non-diagonal A is too large to bound over " + std::to_string(T) +
                " steps");
  std::vector<std::optional<ValueRange>> all(static_cast<size_t>(d));
  ExactMatrix power = ExactMatrix::identity(d);
  Ranges sum(static_cast<size_t>(d), ValueRange::point(Exact(0)));
  for (int t = 1; t <= T; ++t) {
    deadline.check(n.id, t, T);
    const Ranges term = affineRows(power, u, {});  // A^{t-1} u
    for (int i = 0; i < d; ++i) {
      ValueRange& s = sum[static_cast<size_t>(i)];
      s = ValueRange::interval(s.lo + term[static_cast<size_t>(i)].lo,
                               s.hi + term[static_cast<size_t>(i)].hi);
    }
    power = power * A;
    const ExactVector start = power * init;
    for (int i = 0; i < d; ++i) {
      const ValueRange& s = sum[static_cast<size_t>(i)];
      all[static_cast<size_t>(i)] = hull(
          all[static_cast<size_t>(i)], ValueRange::interval(s.lo + start[static_cast<size_t>(i)],
                                                            s.hi + start[static_cast<size_t>(i)]));
    }
  }
  const std::optional<mpq_class> step = isIntegerMatrix(A) ? commonStep(u, init) : std::nullopt;
  for (const auto& r : all) out.push_back(step ? ValueRange::grid(r->lo, r->hi, 0, *step) : *r);
  return out;
}

class Analyser {
 public:
  Analyser(const Graph& g, const InputDomain& d, double seconds)
      : g_(g),
        domain_(d),
        successors_(g.successors()),
        endingAt_(groupsByOutput(g)),
        deadline_{std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(seconds)),
                  seconds} {
    result_.values.resize(g.nodeCount());
  }

  DomainAnalysis run() {
    for (NodeId id : g_.topologicalOrder()) {
      try {
        result_.values[static_cast<size_t>(id)] = primitive(g_.node(id));
      } catch (const Error& e) {
        throw Error(nodeText(id) + ": " + e.what());
      }
      if (auto it = endingAt_.find(id); it != endingAt_.end()) {
        for (GroupId gid : it->second) contract(g_.groups()[static_cast<size_t>(gid)]);
      }
      if (g_.node(id).op == Op::ReLU) {
        if (const auto pattern = gateAt(g_, id, successors_)) primitiveGate(*pattern);
      }
    }
    return std::move(result_);
  }

 private:
  const Ranges& of(NodeId id) const { return result_.values[static_cast<size_t>(id)]; }

  Ranges primitive(const Node& n) const {
    switch (n.op) {
      case Op::Input: {
        const ValueRange r = domain_.grid ? ValueRange::grid(domain_.lo, domain_.hi,
                                                             domain_.lo.toRational(), *domain_.grid)
                                          : ValueRange::interval(domain_.lo, domain_.hi);
        return Ranges(static_cast<size_t>(n.dim), r);
      }
      case Op::Linear:
        return affineRows(n.A, of(n.inputs[0]), n.b);
      case Op::ReLU: {
        Ranges out;
        for (const ValueRange& r : of(n.inputs[0])) out.push_back(relu(r));
        return out;
      }
      case Op::Concat: {
        Ranges out;
        for (NodeId in : n.inputs) {
          const Ranges& part = of(in);
          out.insert(out.end(), part.begin(), part.end());
        }
        return out;
      }
      case Op::Multi: {
        const Ranges& x = of(n.inputs[0]);
        Ranges out;
        for (int i = 0; i < n.dim; ++i)
          out.push_back(product(x[static_cast<size_t>(i)], x[static_cast<size_t>(i + n.dim)]));
        return out;
      }
      case Op::LinState:
        return stateRanges(n, affineRows(n.B, of(n.inputs[0]), n.bias), domain_.horizon, deadline_);
    }
    throw Error("unknown op");
  }

  const std::string* param(const Group& gr, const std::string& key) const {
    return findParam(gr.params, key);
  }

  // A node operand's ranges, a constant broadcast to `width`, or none ("none", absent,
  // or a node outside the program).
  std::optional<Ranges> operand(const Group& gr, const std::string& key, int width) const {
    const std::string* text = param(gr, key);
    if (!text || *text == "none") return std::nullopt;
    if (const auto id = parseNodeReference(*text)) {
      if (*id < 0 || static_cast<size_t>(*id) >= result_.values.size() || of(*id).empty())
        return std::nullopt;
      return of(*id);
    }
    try {
      return Ranges(static_cast<size_t>(width), ValueRange::point(Exact::parse(*text)));
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  Exact constant(const Group& gr, const std::string& key) const {
    const std::string* text = param(gr, key);
    if (!text) throw Error(groupLabel(g_, gr.id) + " records no " + key);
    return Exact::parse(*text);
  }

  // Inside an f_modulo_counter, whose own contract covers its steps.
  bool covered(const Group& gr) const { return insideCallOf(g_, gr, "f_modulo_counter"); }

  void addSite(const Group& gr, const std::string& key, std::optional<Exact> least,
               std::string why) {
    if (covered(gr)) return;
    ConstantSite s;
    s.group = gr.id;
    s.topGroup = outermostGroup(g_, gr.id);
    s.label = groupLabel(g_, gr.id);
    s.param = key;
    s.value = constant(gr, key);
    s.least = std::move(least);
    s.why = std::move(why);
    if (!s.least) result_.assumptions.push_back(s.label + ": " + s.why);
    result_.sites.push_back(std::move(s));
  }

  void contract(const Group& gr) {
    const Node& out = g_.node(gr.output);
    const int d = out.dim;
    const std::string& fn = gr.function;
    if (fn == "f_step") return step(gr);
    if (fn == "f_modulo_counter") return moduloCounter(gr, d);
    if (fn == "f_ifelse" || fn == "f_ifelse_step" || fn == "f_ifelse_mul") return select(gr, d);
  }

  void step(const Group& gr) {
    const auto z = operand(gr, "input", g_.node(gr.output).dim);
    if (!z) return;
    const std::string& input = *param(gr, "input");
    std::optional<Exact> least = Exact(0);
    std::string why = "its input (" + input + ") never exceeds 0";
    Ranges out;
    for (size_t i = 0; i < z->size(); ++i) {
      const ValueRange& r = (*z)[i];
      const std::string where = "its input (" + input + ", entry " + std::to_string(i) + ")";
      if (r.hi <= Exact(0)) {
        out.push_back(ValueRange::point(Exact(0)));
        continue;
      }
      out.push_back(r.lo > Exact(0) ? ValueRange::point(Exact(1))
                                    : ValueRange::grid(Exact(0), Exact(1), 0, 1));
      if (!least) continue;
      if (const std::optional<Exact> p = r.smallestPositive()) {
        if (Exact(1) / *p > *least) {
          least = Exact(1) / *p;
          why = where + " takes values in " + r.describe() + ", the least above 0 being " +
                p->toString();
        }
      } else {
        least.reset();
        why = where + " takes values in " + r.describe() +
              ", continuous across 0: exact only where it stays out of the ramp (0, 1/scale)";
      }
    }
    const bool holds = !least || constant(gr, "scale") >= *least;
    addSite(gr, "scale", least, why);
    // The contract's result: proved, or assumed (least none); a step whose own scale is
    // too small keeps the bounds of its primitives.
    if (holds) result_.values[static_cast<size_t>(gr.output)] = std::move(out);
  }

  void moduloCounter(const Group& gr, int d) {
    const Exact mu = constant(gr, "scale");
    const int n =
        static_cast<int>(Exact::parse(*param(gr, "divisor")).toRational().get_num().get_si());
    const Exact gap = Exact(1) - Exact::cosPi(1, n);
    addSite(gr, "scale", Exact(1) / gap,
            "the one-hot of t mod " + std::to_string(n) + " needs mu·(1 − cos(pi/" +
                std::to_string(n) + ")) ≥ 1");
    if (mu * gap >= Exact(1) && d == 1)
      result_.values[static_cast<size_t>(gr.output)] = {
          ValueRange::grid(Exact(0), Exact(n - 1), 0, 1)};
  }

  // f_ifelse, f_ifelse_step, f_ifelse_mul: c ? t : f, where c is 0 or 1.
  void select(const Group& gr, int d) {
    const auto c = operand(gr, "condition", d);
    if (!c) return;
    const Ranges zero(static_cast<size_t>(d), ValueRange::point(Exact(0)));
    const auto t = operand(gr, "t_val", d);
    const auto f = operand(gr, "f_val", d);
    const bool gated = gr.function != "f_ifelse_mul";
    // f_ifelse_step tests step(c − ½), whose own site proves it 0 or 1 for c in {0, 1}.
    bool boolean = true;
    for (const ValueRange& r : *c) boolean = boolean && r.isBoolean();
    if (!boolean) {
      if (gated)
        addSite(gr, "large_constant", std::nullopt,
                "its condition (" + *param(gr, "condition") + ") is not always 0 or 1");
      return;
    }
    Exact bound(0);
    Ranges out;
    for (size_t i = 0; i < static_cast<size_t>(d); ++i) {
      const ValueRange& tv = (t ? *t : zero)[i];
      const ValueRange& fv = (f ? *f : zero)[i];
      bound = std::max({bound, tv.maxAbs(), fv.maxAbs()});
      const ValueRange& ci = (*c)[i];
      out.push_back(ci.isPoint() ? (ci.lo.isOne() ? tv : fv) : join(tv, fv));
    }
    if (gated) {
      addSite(gr, "large_constant", bound,
              "the values it selects (t_val " + *param(gr, "t_val") + ", f_val " +
                  *param(gr, "f_val") + ") stay within ±" + bound.toString());
      if (constant(gr, "large_constant") < bound) return;  // not a selection as built
    }
    result_.values[static_cast<size_t>(gr.output)] = std::move(out);
  }

  // ReLU(−λ·test ± value): ReLU(±value) where test is 0, 0 where it is 1. Returns the
  // bound λ must reach, or none when test is not always 0 or 1; sets the node's values
  // when the gate is one as built.
  std::optional<Exact> gateContract(NodeId out, const Ranges& test, const Ranges& value, int sign,
                                    const Exact& lambda) {
    for (const ValueRange& r : test) {
      if (!r.isBoolean()) return std::nullopt;
    }
    Exact bound(0);
    Ranges values;
    const ValueRange zero = ValueRange::point(Exact(0));
    for (size_t i = 0; i < value.size(); ++i) {
      const ValueRange v = affine({{Exact(sign), &value[i]}}, Exact(0));
      bound = std::max(bound, v.hi);
      const ValueRange open = relu(v);
      values.push_back(test[i].isPoint() ? (test[i].lo.isOne() ? zero : open) : join(open, zero));
    }
    if (lambda >= bound) result_.values[static_cast<size_t>(out)] = std::move(values);
    return bound;
  }

  void primitiveGate(const GatePattern& p) {
    ConstantSite s;
    s.gateNode = p.gate;
    s.label = "gate ReLU(-lambda·test " + std::string(p.sign > 0 ? "+" : "-") + " value) (" +
              nodeText(p.relu) + ")";
    s.param = "large_constant";
    s.value = p.lambda;
    s.least = gateContract(p.relu, of(p.test), of(p.value), p.sign, p.lambda);
    s.why = s.least
                ? "the value it gates (" + nodeText(p.value) + ") stays ≤ " + s.least->toString()
                : "its test (" + nodeText(p.test) + ") is not always 0 or 1";
    if (!s.least) result_.assumptions.push_back(s.label + ": " + s.why);
    result_.sites.push_back(std::move(s));
  }

  const Graph& g_;
  const InputDomain& domain_;
  const std::vector<std::vector<NodeId>> successors_;
  const std::map<NodeId, std::vector<GroupId>> endingAt_;  // innermost first
  const Deadline deadline_;
  DomainAnalysis result_;
};

}  // namespace

std::string InputDomain::describe() const {
  std::string s = "inputs in [" + lo.toString() + ", " + hi.toString() + "]";
  if (grid)
    s += *grid == 1 && lo.isInteger() ? " (whole numbers)"
                                      : " on steps of " + Exact(*grid).toString();
  return s + ", t ≤ " + std::to_string(horizon);
}

std::optional<GatePattern> gateAt(const Graph& g, NodeId relu,
                                  const std::vector<std::vector<NodeId>>& successors) {
  auto only = [&](NodeId id, NodeId reader) {
    const auto& next = successors[static_cast<size_t>(id)];
    return next.size() == 1 && next[0] == reader;
  };
  auto zero = [](const ExactVector& b) {
    for (const Exact& v : b) {
      if (!v.isZero()) return false;
    }
    return true;
  };
  const Node& r = g.node(relu);
  if (r.op != Op::ReLU || r.group != kNoGroup || r.inputs.size() != 1) return std::nullopt;
  const Node& sum = g.node(r.inputs[0]);
  if (sum.op != Op::Linear || sum.isSlice() || sum.group != kNoGroup || !only(sum.id, relu) ||
      !zero(sum.b) || sum.inputs.size() != 1)
    return std::nullopt;
  const Node& both = g.node(sum.inputs[0]);
  const int d = r.dim;
  if (both.op != Op::Concat || both.group != kNoGroup || both.inputs.size() != 2 ||
      !only(both.id, sum.id) || both.inputs[0] == both.inputs[1])
    return std::nullopt;
  const Node& gate = g.node(both.inputs[0]);
  const Node& value = g.node(both.inputs[1]);
  if (gate.dim != d || value.dim != d || sum.A.rows() != d || sum.A.cols() != 2 * d ||
      sum.A.nonZeros() != static_cast<size_t>(2 * d))
    return std::nullopt;
  GatePattern p;
  p.relu = relu;
  p.gate = gate.id;
  p.value = value.id;
  p.sign = sum.A.at(0, d).sign();
  for (int i = 0; i < d; ++i) {
    if (!sum.A.at(i, i).isOne() || sum.A.at(i, d + i) != Exact(p.sign) || p.sign == 0)
      return std::nullopt;
  }
  if (gate.op != Op::Linear || gate.isSlice() || gate.group != kNoGroup ||
      !only(gate.id, both.id) || !zero(gate.b) || gate.inputs.size() != 1 || gate.A.cols() != d ||
      gate.A.nonZeros() != static_cast<size_t>(d))
    return std::nullopt;
  p.lambda = -gate.A.at(0, 0);
  if (p.lambda.sign() <= 0) return std::nullopt;
  for (int i = 0; i < d; ++i) {
    if (gate.A.at(i, i) != -p.lambda) return std::nullopt;
  }
  p.test = gate.inputs[0];
  return p;
}

InputDomain domainOf(const std::vector<std::vector<std::vector<Exact>>>& inputs) {
  std::optional<Exact> lo, hi;
  bool whole = true;
  size_t longest = 0;
  for (const auto& sequence : inputs) {
    longest = std::max(longest, sequence.size());
    for (const auto& token : sequence) {
      for (const Exact& v : token) {
        if (!lo || v < *lo) lo = v;
        if (!hi || v > *hi) hi = v;
        whole = whole && v.isInteger();
      }
    }
  }
  if (!lo) throw Error("no input token to take the domain from");
  InputDomain d;
  d.lo = *lo;
  d.hi = *hi;
  if (whole) d.grid = mpq_class(1);
  d.horizon = static_cast<int>(std::min<size_t>(longest, 1'000'000'000));
  return d;
}

std::string groupLabel(const Graph& g, GroupId id) {
  const Group& gr = g.groups()[static_cast<size_t>(id)];
  return gr.function + " (" + nodeText(gr.output) + ")";
}

DomainAnalysis analyseDomain(const Graph& g, const InputDomain& domain, double timeLimitSeconds) {
  if (domain.hi < domain.lo)
    throw Error("the input domain [" + domain.lo.toString() + ", " + domain.hi.toString() +
                "] is empty");
  if (domain.horizon < 1)
    throw Error("the horizon must be at least 1, got " + std::to_string(domain.horizon));
  if (domain.grid && (*domain.grid <= 0 || !domain.lo.isRational()))
    throw Error("an input grid needs a positive step and a rational lower end");
  return Analyser(g, domain, timeLimitSeconds).run();
}

}  // namespace lsrl
