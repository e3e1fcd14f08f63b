#include "core/precision/certificate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/graph/node_reference.h"
#include "core/graph/sugar_replay.h"
#include "core/numbers/exact_field.h"
#include "core/precision/group_tree.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// 2-adic exponents: every value is a multiple of 2^q. Two sentinels: not a dyadic
// rational (cannot be exact in binary floating point), and zero (a multiple of anything).
constexpr int kNotDyadic = std::numeric_limits<int>::min() / 4;
constexpr int kZero = std::numeric_limits<int>::max() / 4;

int addQ(int a, int b) {
  if (a == kNotDyadic || b == kNotDyadic) return kNotDyadic;
  if (a == kZero || b == kZero) return kZero;
  return a + b;
}

int minQ(int a, int b) {
  if (a == kNotDyadic || b == kNotDyadic) return kNotDyadic;
  return std::min(a, b);
}

int twoAdic(const mpq_class& q) {
  if (q == 0) return kZero;
  const mpz_class& den = q.get_den();
  if ((den & (den - 1)) != 0) return kNotDyadic;
  const mpz_class num = abs(q.get_num());
  return static_cast<int>(mpz_scan1(num.get_mpz_t(), 0)) -
         static_cast<int>(mpz_scan1(den.get_mpz_t(), 0));
}

int twoAdic(const Exact& x) {
  if (x.isZero()) return kZero;
  return x.isRational() ? twoAdic(x.toRational()) : kNotDyadic;
}

// The exponent every value of the range is a multiple of.
int quantumOf(const ValueRange& r) {
  if (r.isPoint()) return twoAdic(r.lo);
  if (!r.onGrid) return kNotDyadic;
  return minQ(twoAdic(r.offset), twoAdic(r.step));
}

double magnitude(const ValueRange& r) { return r.maxAbs().toDouble(); }

// One component of a node, as the compiled path would compute it.
struct Component {
  double error = 0;  // bound on |computed − exact| propagated from earlier roundings
  // The row of the folded chain that ends here (a fresh value: the value itself).
  double sum = 0;          // Σ |coefficient·term| + |bias|
  double coefficient = 1;  // bound on the folded coefficients and bias
  int termQ = 0;           // the terms and bias are multiples of 2^termQ
  int coefficientQ = 0;    // the coefficients are multiples of 2^coefficientQ
  double terms = 1;        // how many terms the folded row sums
  double rounding = 0;     // ReLU: the rounding of the row it flushed (in its units)
};
using Components = std::vector<Component>;

class Certifier {
 public:
  Certifier(const Graph& g, const DomainAnalysis& a, const InputDomain& d, Precision format,
            double tolerance)
      : g_(g),
        a_(a),
        domain_(d),
        digits_(format == Precision::Fp32 ? 24 : 53),
        unit_(std::ldexp(1.0, -(format == Precision::Fp32 ? 24 : 53))),
        tolerance_(tolerance),
        successors_(g.successors()),
        endingAt_(groupsByOutput(g)) {
    cert_.format = format;
    cert_.domain = d.describe();
    comps_.resize(g.nodeCount());
    for (const ConstantSite& s : a.sites) {
      if (s.least && s.group != kNoGroup) gateBound_[s.group] = s.least->toDouble();
      if (s.least && s.gateNode != kNoNode) gateBound_[~s.gateNode] = s.least->toDouble();
    }
  }

  Certificate run() {
    const NodeId out = g_.output();
    if (out == kNoNode) throw Error("the program has no output");
    outputMargin();
    for (NodeId id : g_.topologicalOrder()) {
      comps_[static_cast<size_t>(id)] = primitive(g_.node(id));
      if (auto it = endingAt_.find(id); it != endingAt_.end()) {
        for (GroupId gid : it->second) contract(g_.groups()[static_cast<size_t>(gid)]);
      }
      const Node& n = g_.node(id);
      if (n.op == Op::ReLU) {
        if (const auto p = gateAt(g_, id, successors_)) primitiveGate(*p);
      }
      noteFirstLarge(id);
    }
    double error = 0;
    for (const Component& c : comps_[static_cast<size_t>(out)])
      error = std::max(error, c.error + rounding(c));
    cert_.outputError = error;
    check({"output (node " + std::to_string(out) + ")", error, cert_.outputMargin});
    if (cert_.failing && firstLarge_ && cert_.failing->label.rfind("output", 0) == 0)
      cert_.failing->label += "; the error first exceeds the margin at " + *firstLarge_;
    cert_.safe = !cert_.failing;
    return std::move(cert_);
  }

 private:
  const Components& of(NodeId id) const { return comps_[static_cast<size_t>(id)]; }
  const ValueRange& range(NodeId id, size_t i) const {
    return a_.values[static_cast<size_t>(id)][i];
  }

  bool fits(double sum, int q) const {
    if (sum == 0 || q == kZero) return true;
    if (q == kNotDyadic) return false;
    return sum < std::ldexp(1.0, digits_ + q);
  }

  // The rounding error of a folded row computed in the format: none when every product
  // and partial sum is representable, else the classic bound γ_k·Σ|terms| with one more
  // term for rounding the coefficients and one for the bias.
  double rounding(const Component& c) const {
    if (c.error == 0 && fits(c.sum, c.termQ) && fits(c.coefficient, c.coefficientQ)) return 0;
    const double k = c.terms + 2;
    return k * unit_ / (1 - k * unit_) * c.sum;
  }

  Component fresh(double error, const ValueRange& r) const {
    Component c;
    c.error = error;
    c.sum = magnitude(r);
    c.termQ = quantumOf(r);
    return c;
  }

  Components affineRows(const ExactMatrix& M, const Components& x, const ExactVector& b) const {
    Components out(static_cast<size_t>(M.rows()));
    const auto& start = M.rowStart();
    for (int i = 0; i < M.rows(); ++i) {
      Component& y = out[static_cast<size_t>(i)];
      y.sum = y.coefficient = y.terms = 0;
      y.termQ = y.coefficientQ = kZero;
      for (int64_t k = start[static_cast<size_t>(i)]; k < start[static_cast<size_t>(i) + 1]; ++k) {
        const Exact& w = M.values()[static_cast<size_t>(k)];
        const Component& xj = x[static_cast<size_t>(M.colIndex()[static_cast<size_t>(k)])];
        const double aw = std::abs(w.toDouble());
        const int q = twoAdic(w);
        y.error += aw * xj.error;
        y.sum += aw * xj.sum;
        y.coefficient += aw * xj.coefficient;
        y.termQ = minQ(y.termQ, addQ(q, xj.termQ));
        y.coefficientQ = minQ(y.coefficientQ, addQ(q, xj.coefficientQ));
        y.terms += xj.terms;
      }
      if (!b.empty() && !b[static_cast<size_t>(i)].isZero()) {
        const Exact& bias = b[static_cast<size_t>(i)];
        y.sum += std::abs(bias.toDouble());
        y.coefficient += std::abs(bias.toDouble());
        y.termQ = minQ(y.termQ, twoAdic(bias));
        y.coefficientQ = minQ(y.coefficientQ, twoAdic(bias));
        y.terms += 1;
      }
      y.terms = std::max(y.terms, 1.0);
    }
    return out;
  }

  Components primitive(const Node& n) {
    const size_t id = static_cast<size_t>(n.id);
    switch (n.op) {
      case Op::Input: {
        Components out;
        for (size_t i = 0; i < static_cast<size_t>(n.dim); ++i) {
          const ValueRange& r = range(n.id, i);
          const bool representable = fits(magnitude(r), quantumOf(r));
          out.push_back(fresh(representable ? 0 : unit_ * magnitude(r), r));
        }
        return out;
      }
      case Op::Linear:
        return affineRows(n.A, of(n.inputs[0]), n.b);
      case Op::Concat: {
        Components out;
        for (NodeId in : n.inputs) out.insert(out.end(), of(in).begin(), of(in).end());
        return out;
      }
      case Op::ReLU: {
        Components out;
        const Components& x = of(n.inputs[0]);
        for (size_t i = 0; i < x.size(); ++i) {
          const double r = rounding(x[i]);
          Component c = fresh(x[i].error + r, a_.values[id][i]);
          c.rounding = r;
          out.push_back(c);
        }
        return out;
      }
      case Op::Multi:
        return multi(n);
      case Op::LinState:
        return state(n);
    }
    throw Error("unknown op");
  }

  Components multi(const Node& n) const {
    const Components& x = of(n.inputs[0]);
    Components out;
    for (size_t i = 0; i < static_cast<size_t>(n.dim); ++i) {
      const size_t j = i + static_cast<size_t>(n.dim);
      const double ea = x[i].error + rounding(x[i]);
      const double eb = x[j].error + rounding(x[j]);
      const double ma = magnitude(range(n.inputs[0], i));
      const double mb = magnitude(range(n.inputs[0], j));
      const int q = addQ(quantumOf(range(n.inputs[0], i)), quantumOf(range(n.inputs[0], j)));
      const bool exact = ea == 0 && eb == 0 && fits(ma * mb, q);
      out.push_back(
          fresh(ma * eb + mb * ea + ea * eb + (exact ? 0 : unit_ * ma * mb), range(n.id, i)));
    }
    return out;
  }

  // s_t = A s_{t−1} + u_t with the drive u = B x + bias folded into one row.
  Components state(const Node& n) const {
    const Components drive = affineRows(n.B, of(n.inputs[0]), n.bias);
    const size_t d = static_cast<size_t>(n.dim);
    std::vector<double> step(d), start(d);
    bool exact = true;
    const auto& rows = n.A.rowStart();
    std::vector<double> rowAbs(d, 0);
    for (size_t i = 0; i < d; ++i) {
      const Component& u = drive[i];
      const double du = u.error + rounding(u);
      double sum = u.sum;
      int q = u.termQ;
      double terms = 2;
      for (int64_t k = rows[i]; k < rows[i + 1]; ++k) {
        const size_t j = static_cast<size_t>(n.A.colIndex()[static_cast<size_t>(k)]);
        const Exact& w = n.A.values()[static_cast<size_t>(k)];
        rowAbs[i] += std::abs(w.toDouble());
        sum += std::abs(w.toDouble()) * magnitude(range(n.id, j));
        q = minQ(q, addQ(twoAdic(w), quantumOf(range(n.id, j))));
        terms += 1;
      }
      const Exact& init = n.init[i];
      const bool initExact = fits(std::abs(init.toDouble()), twoAdic(init));
      exact = exact && du == 0 && fits(sum, q) && initExact;
      step[i] = du + terms * unit_ / (1 - terms * unit_) * sum;
      start[i] = initExact ? 0 : unit_ * std::abs(init.toDouble());
    }
    Components out;
    if (exact) {
      for (size_t i = 0; i < d; ++i) out.push_back(fresh(0, range(n.id, i)));
      return out;
    }
    const std::vector<double> e = stateError(n.A, rowAbs, step, start);
    for (size_t i = 0; i < d; ++i) out.push_back(fresh(e[i], range(n.id, i)));
    return out;
  }

  // The error after `horizon` steps of e_t = |A| e_{t−1} + step. Where |A| does not grow
  // errors (row sums ≤ 1) it is iterated per component; a rotation's |A| does (|c| + |s|
  // > 1) though A itself does not, so there the Euclidean norm bounds it: ‖A‖₂ exactly for
  // 2×2 blocks, √(‖A‖₁‖A‖∞) otherwise, plus the rounding of A's entries.
  std::vector<double> stateError(const ExactMatrix& A, const std::vector<double>& rowAbs,
                                 const std::vector<double>& step,
                                 const std::vector<double>& start) const {
    const size_t d = step.size();
    const int T = domain_.horizon;
    const bool contracting =
        std::all_of(rowAbs.begin(), rowAbs.end(), [](double s) { return s <= 1; });
    if (contracting && static_cast<double>(A.nonZeros() + d) * T < 5e7) {
      std::vector<double> e = start, next(d);
      const auto& rows = A.rowStart();
      std::vector<double> absA;
      for (const Exact& w : A.values()) absA.push_back(std::abs(w.toDouble()));
      for (int t = 0; t < T; ++t) {
        for (size_t i = 0; i < d; ++i) {
          double v = step[i];
          for (int64_t k = rows[i]; k < rows[i + 1]; ++k)
            v += absA[static_cast<size_t>(k)] *
                 e[static_cast<size_t>(A.colIndex()[static_cast<size_t>(k)])];
          next[i] = v;
        }
        std::swap(e, next);
      }
      return e;
    }
    const double a = spectralBound(A) + 4 * unit_;
    double delta = 0, e0 = 0;
    for (size_t i = 0; i < d; ++i) {
      delta += step[i] * step[i];
      e0 += start[i] * start[i];
    }
    delta = std::sqrt(delta);
    e0 = std::sqrt(e0);
    const double grow = std::pow(a, T);
    const double total =
        grow * e0 + (std::abs(a - 1) < 1e-300 ? T * delta : (grow - 1) / (a - 1) * delta);
    return std::vector<double>(d, total);
  }

  static double spectralBound(const ExactMatrix& A) {
    const int d = A.rows();
    bool blocks = true;
    for (const auto& e : A.entries()) blocks = blocks && e.row / 2 == e.col / 2;
    if (blocks) {
      double worst = 0;
      for (int k = 0; k < d; k += 2) {
        const int m = std::min(2, d - k);
        double p = A.at(k, k).toDouble(), q = m > 1 ? A.at(k, k + 1).toDouble() : 0;
        double r = m > 1 ? A.at(k + 1, k).toDouble() : 0,
               s = m > 1 ? A.at(k + 1, k + 1).toDouble() : 0;
        // The largest singular value of [[p, q], [r, s]].
        const double t = p * p + q * q + r * r + s * s;
        const double det = p * s - q * r;
        const double disc = std::sqrt(std::max(0.0, t * t / 4 - det * det));
        worst = std::max(worst, std::sqrt(t / 2 + disc));
      }
      return worst;
    }
    std::vector<double> col(static_cast<size_t>(d), 0), row(static_cast<size_t>(d), 0);
    for (const auto& e : A.entries()) {
      row[static_cast<size_t>(e.row)] += std::abs(e.value.toDouble());
      col[static_cast<size_t>(e.col)] += std::abs(e.value.toDouble());
    }
    return std::sqrt(*std::max_element(col.begin(), col.end()) *
                     *std::max_element(row.begin(), row.end()));
  }

  // ---- contracts: what decides, and how much error it takes -------------------------

  void contract(const Group& gr) {
    if (gr.function == "f_step") return step(gr);
    if (gr.function == "f_modulo_counter") return counter(gr);
    if (gr.function == "f_ifelse" || gr.function == "f_ifelse_step") return gate(gr);
  }

  std::vector<NodeId> ownRelus(const Group& gr) const {
    std::vector<NodeId> out;
    for (NodeId id : gr.nodes) {
      if (g_.contains(id) && g_.node(id).op == Op::ReLU && g_.node(id).group == gr.id)
        out.push_back(id);
    }
    return out;
  }

  struct StepParts {
    NodeId input = kNoNode, rising = kNoNode, over = kNoNode;
    double scale = 0;
  };
  std::optional<StepParts> stepParts(const Group& gr) const {
    const std::string* input = findParam(gr.params, "input");
    const std::string* scale = findParam(gr.params, "scale");
    const std::vector<NodeId> relus = ownRelus(gr);
    if (!input || !scale || relus.size() != 2) return std::nullopt;
    const auto z = parseNodeReference(*input);
    if (!z || !g_.contains(*z)) return std::nullopt;
    return StepParts{*z, relus[0], relus[1], Exact::parse(*scale).toDouble()};
  }

  // A step ReLU(μz) − μ·ReLU(z − 1/μ) on an input that is off by e_z, with its two rows
  // rounded by r₁ (in μ units) and r₂. It is 1 where z ≥ p while both arguments keep their
  // sign: e_z + r₁/μ < p and e_z + r₂ < p − 1/μ. It is 0 where z ≤ m < 0 while
  // e_z + r₁/μ < |m| and e_z + r₂ < |m| + 1/μ. As one error against one margin:
  double highError(const StepParts& s, size_t i) const {
    return of(s.input)[i].error +
           std::max(of(s.rising)[i].rounding / s.scale - 1 / s.scale, of(s.over)[i].rounding);
  }
  double lowError(const StepParts& s, size_t i) const {
    return of(s.input)[i].error +
           std::max(of(s.rising)[i].rounding / s.scale, of(s.over)[i].rounding - 1 / s.scale);
  }
  // Where it saturates at 1: the two ReLUs' shared input error cancels, their roundings
  // remain (μ·ReLU(z − 1/μ) scales the second).
  double saturatedError(const StepParts& s, size_t i) const {
    return of(s.rising)[i].rounding + s.scale * of(s.over)[i].rounding;
  }
  // Where its input is exactly 0 (an equality test's "equal"): the rising ReLU passes
  // μ·e_z on; the other stays 0 while e_z + r₂ < 1/μ.
  double atZeroError(const StepParts& s, size_t i) const {
    const double ez = of(s.input)[i].error;
    const double over = ez + of(s.over)[i].rounding - 1 / s.scale;
    return s.scale * ez + of(s.rising)[i].rounding + (over > 0 ? s.scale * over : 0);
  }

  void step(const Group& gr) {
    if (insideCallOf(g_, gr, "f_modulo_counter")) return;  // the counter's contract covers it
    const auto s = stepParts(gr);
    if (!s) return;
    const std::string label = groupLabel(g_, gr.id);
    const size_t d = of(gr.output).size();
    std::vector<double> errors(d, 0);
    std::optional<MarginCheck> worst;
    double clearance = 0;
    bool continuous = false;  // some input crosses 0 continuously: assumed to saturate
    for (size_t i = 0; i < d; ++i) {
      const ValueRange& z = range(s->input, i);
      if (z.hi > Exact(0)) {
        if (const auto p = z.smallestPositive()) {
          keepWorst(worst, {label, highError(*s, i), p->toDouble() - 1 / s->scale});
        } else {
          continuous = true;
          clearance = std::max(clearance, highError(*s, i));
        }
        errors[i] = saturatedError(*s, i);
      }
      if (z.lo <= Exact(0)) {
        const auto m = z.largestNonPositive();
        if (m && !m->isZero()) {
          keepWorst(worst, {label, lowError(*s, i), -m->toDouble()});
        } else if (m) {
          errors[i] = std::max(errors[i], atZeroError(*s, i));
        } else {
          continuous = true;
          clearance = std::max(clearance, lowError(*s, i));
        }
      }
    }
    if (continuous) {
      std::ostringstream text;
      text << label << ": exact where its input stays more than " << clearance
           << " below 0 or more than " << 1 / s->scale + clearance << " above 0";
      cert_.conditions.push_back(text.str());
    }
    if (worst && !check(*worst)) return;  // keeps the primitives' (Lipschitz) bound
    for (size_t i = 0; i < d; ++i) comps_[static_cast<size_t>(gr.output)][i].error = errors[i];
  }

  void counter(const Group& gr) {
    const Group* inner = nullptr;
    for (const Group& other : g_.groups()) {
      if (!other.removed && other.function == "f_step" && withinGroup(g_, other.id, gr.id))
        inner = &other;
    }
    const std::string* divisor = findParam(gr.params, "divisor");
    if (!inner || !divisor) return;
    const auto s = stepParts(*inner);
    if (!s) return;
    const long long n = std::stoll(*divisor);
    // The rotation's indicator is cos(2πk/n) against cos(π/n); a one-hot shift register's
    // (exact_counter.h) is on a grid, which gives its margins.
    const double threshold = Exact::cosPi(1, n).toDouble();
    double high = 1 - threshold - 1 / s->scale;
    double low = n >= 2 ? threshold - Exact::cosPi(2, n).toDouble() : high;
    const ValueRange& z = range(s->input, 0);
    const auto p = z.smallestPositive();
    const auto m = z.largestNonPositive();
    if (p && m && !m->isZero()) {
      high = p->toDouble() - 1 / s->scale;
      low = -m->toDouble();
    }
    const std::string label = groupLabel(g_, gr.id);
    std::optional<MarginCheck> worst;
    // One position is hot at a time; the others' ReLUs are exactly 0 while the margins
    // hold, so they add neither error nor terms to the sums that read the counter.
    double error = 0, sum = 0;
    for (size_t i = 0; i < of(s->input).size(); ++i) {
      keepWorst(worst, {label, highError(*s, i), high});
      keepWorst(worst, {label, lowError(*s, i), low});
      const double position = static_cast<double>(i);
      error = std::max(error, position * saturatedError(*s, i));
      sum = std::max(sum, position * (of(s->rising)[i].sum + s->scale * of(s->over)[i].sum));
    }
    if (!worst || !check(*worst)) return;
    for (Component& c : comps_[static_cast<size_t>(gr.output)]) {
      c.error = error;
      c.sum = std::min(c.sum, sum);
      c.terms = std::min(c.terms, 2.0);
    }
  }

  // f_ifelse, f_ifelse_step: a closed gate ReLU(−λ + v) stays 0 while its argument's
  // error is below λ − max v. The open side's error is the primitives' bound.
  void gate(const Group& gr) {
    const auto bound = gateBound_.find(gr.id);
    const std::string* lambda = findParam(gr.params, "large_constant");
    if (bound == gateBound_.end() || !lambda) return;
    double error = 0;
    for (NodeId relu : ownRelus(gr))
      for (const Component& c : of(relu)) error = std::max(error, c.error);
    check({groupLabel(g_, gr.id), error, Exact::parse(*lambda).toDouble() - bound->second});
  }

  void primitiveGate(const GatePattern& p) {
    const auto bound = gateBound_.find(~p.gate);
    if (bound == gateBound_.end()) return;
    double error = 0;
    for (const Component& c : of(p.relu)) error = std::max(error, c.error);
    check({"gate ReLU(-lambda·test ± value) (node " + std::to_string(p.relu) + ")", error,
           p.lambda.toDouble() - bound->second});
  }

  // ---- the verdict ---------------------------------------------------------------------

  static void keepWorst(std::optional<MarginCheck>& worst, const MarginCheck& c) {
    if (!worst || c.margin - c.error < worst->margin - worst->error) worst = c;
  }

  bool check(const MarginCheck& c) {
    ++cert_.checks;
    if (!c.holds() && !cert_.failing) cert_.failing = c;
    const auto headroom = [](const MarginCheck& m) {
      return m.margin > 0 ? (m.margin - m.error) / m.margin : -1;
    };
    if (!cert_.tightest || headroom(c) < headroom(*cert_.tightest)) cert_.tightest = c;
    return c.holds();
  }

  void outputMargin() {
    const auto& values = a_.values[static_cast<size_t>(g_.output())];
    bool grid = !values.empty();
    double margin = std::numeric_limits<double>::infinity();
    for (const ValueRange& r : values) {
      if (r.isPoint()) continue;
      if (!r.onGrid || r.step == 0) {
        grid = false;
        break;
      }
      margin = std::min(margin, r.step.get_d() / 2);
    }
    cert_.outputOnGrid = grid && std::isfinite(margin);
    cert_.outputMargin = cert_.outputOnGrid ? margin : tolerance_;
  }

  void noteFirstLarge(NodeId id) {
    if (firstLarge_) return;
    for (const Component& c : of(id)) {
      if (c.error < cert_.outputMargin) continue;
      const Node& n = g_.node(id);
      firstLarge_ = n.group != kNoGroup
                        ? groupLabel(g_, outermostGroup(g_, n.group))
                        : std::string(opName(n.op)) + " (node " + std::to_string(id) + ")";
      return;
    }
  }

  const Graph& g_;
  const DomainAnalysis& a_;
  const InputDomain& domain_;
  const int digits_;
  const double unit_;
  const double tolerance_;
  const std::vector<std::vector<NodeId>> successors_;
  const std::map<NodeId, std::vector<GroupId>> endingAt_;  // innermost first
  std::vector<Components> comps_;
  std::map<long long, double> gateBound_;  // group id, or ~(gate node) for primitive gates
  std::optional<std::string> firstLarge_;
  Certificate cert_;
};

std::string number(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

}  // namespace

std::string Certificate::summary() const {
  const std::string head = std::string(safe ? "certified" : "not certified") + " in " +
                           std::string(precisionName(format)) + " for " + domain;
  if (!safe && failing)
    return head + ": " + failing->label + ": error bound " + number(failing->error) + " ≥ margin " +
           number(failing->margin);
  std::string s = head + ": output error ≤ " + number(outputError) + " < " + number(outputMargin) +
                  (outputOnGrid ? " (half a grid step)" : " (tolerance)");
  if (!conditions.empty())
    s += ", where the " + std::to_string(conditions.size()) +
         " steps on continuous inputs stay out of their ramps";
  return s;
}

Certificate certifyPrecision(const Graph& g, const DomainAnalysis& analysis,
                             const InputDomain& domain, Precision format, double tolerance) {
  if (format == Precision::Exact) throw Error("a margin certificate is for float64 or fp32");
  if (analysis.values.size() != g.nodeCount())
    throw Error("the domain analysis is not of this graph");
  return Certifier(g, analysis, domain, format, tolerance).run();
}

nlohmann::json certificateJson(const Certificate& c) {
  const auto checkJson = [](const MarginCheck& m) {
    return nlohmann::json{{"construct", m.label}, {"error", m.error}, {"margin", m.margin}};
  };
  nlohmann::json j{{"format", std::string(precisionName(c.format))},
                   {"domain", c.domain},
                   {"safe", c.safe},
                   {"output_error", c.outputError},
                   {"output_margin", c.outputMargin},
                   {"margins_checked", c.checks},
                   {"summary", c.summary()}};
  if (c.failing) j["failing"] = checkJson(*c.failing);
  if (c.tightest) j["tightest"] = checkJson(*c.tightest);
  if (!c.conditions.empty()) j["conditions"] = c.conditions;
  return j;
}

}  // namespace lsrl
