#include "app/studio/stepper/divergence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace lsrl::studio {

namespace {

bool sameGraph(const StepperRun& a, const StepperRun& b) {
  return a.spec.source == RunSource::Program && b.spec.source == RunSource::Program;
}

// Two compiled paths (both traced) with the same ops and widths node after node: the
// same compile in two backends, so position k carries the same values in both.
bool samePathStructure(const StepperRun& a, const StepperRun& b) {
  if (a.spec.source != RunSource::Compiled || b.spec.source != RunSource::Compiled) return false;
  if (!a.hasNodeTrace() || !b.hasNodeTrace()) return false;
  const auto x = a.tracedNodes(), y = b.tracedNodes();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const Node& p = a.graph.node(x[i]);
    const Node& q = b.graph.node(y[i]);
    if (p.op != q.op || p.dim != q.dim) return false;
  }
  return true;
}

// Names that occur exactly once among the traced nodes.
std::map<std::string, NodeId> uniqueNames(const StepperRun& r) {
  std::map<std::string, int> count;
  std::map<std::string, NodeId> id;
  for (NodeId n : r.tracedNodes()) {
    const std::string& name = r.graph.node(n).name;
    if (name.empty()) continue;
    ++count[name];
    id[name] = n;
  }
  for (const auto& [name, c] : count)
    if (c > 1) id.erase(name);
  return id;
}

std::string entryText(const StepperRun& r, NodeId node, int t, int component) {
  if (const auto* e = std::get_if<ExactTrace>(&r.trace); e != nullptr && node != kNoNode)
    return e->value(node, t).at(static_cast<size_t>(component)).toString();
  if (r.isExact() && node == kNoNode)
    return r.exactOutputs.at(static_cast<size_t>(t)).at(static_cast<size_t>(component)).toString();
  const double x =
      node == kNoNode ? r.floatOutputs.at(static_cast<size_t>(t)).at(static_cast<size_t>(component))
                      : r.value(node, t).at(static_cast<size_t>(component));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// The first differing component of two values, or -1.
template <class X, class Y>
int firstDifference(const std::vector<X>& x, const std::vector<Y>& y, double tolerance) {
  const size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<X, Exact> && std::is_same_v<Y, Exact>) {
      if (!(x[i] == y[i])) return static_cast<int>(i);
    } else {
      const double a = static_cast<double>(x[i]), b = static_cast<double>(y[i]);
      const double scale = std::max({1.0, std::fabs(a), std::fabs(b)});
      if (!(std::fabs(a - b) <= tolerance * scale)) return static_cast<int>(i);
    }
  }
  return x.size() == y.size() ? -1 : static_cast<int>(n);
}

// Reads through compiled labels: at least one side is a labelled compiled path and both
// are traced.
bool inProgramTerms(const StepperRun& a, const StepperRun& b) {
  if (!a.hasNodeTrace() || !b.hasNodeTrace()) return false;
  return (a.program != nullptr && !a.carriers.empty()) ||
         (b.program != nullptr && !b.carriers.empty());
}

// The function of the sugar call that created node n ("f_larger"), or empty.
std::string enclosingFunction(const Graph& g, NodeId n) {
  const GroupId group = g.node(n).group;
  if (!g.containsGroup(group)) return {};
  return g.groups()[static_cast<size_t>(group)].function;
}

// One step's traced values of a run, each node read once.
class StepValues {
 public:
  StepValues(const StepperRun& run, int t) : run_(run), t_(t) {}
  double number(NodeId node, int c) {
    auto it = numbers_.find(node);
    if (it == numbers_.end()) it = numbers_.emplace(node, run_.value(node, t_)).first;
    return it->second.at(static_cast<size_t>(c));
  }
  const Exact& exact(NodeId node, int c) {
    auto it = exacts_.find(node);
    if (it == exacts_.end())
      it = exacts_.emplace(node, std::get<ExactTrace>(run_.trace).value(node, t_)).first;
    return it->second.at(static_cast<size_t>(c));
  }

 private:
  const StepperRun& run_;
  int t_;
  std::map<NodeId, std::vector<double>> numbers_;
  std::map<NodeId, std::vector<Exact>> exacts_;
};

bool entriesDiffer(StepValues& va, std::pair<NodeId, int> x, StepValues& vb,
                   std::pair<NodeId, int> y, bool exact, double tolerance) {
  if (exact) return !(va.exact(x.first, x.second) == vb.exact(y.first, y.second));
  const double p = va.number(x.first, x.second), q = vb.number(y.first, y.second);
  return !(std::fabs(p - q) <= tolerance * std::max({1.0, std::fabs(p), std::fabs(q)}));
}

// "path node 9[2] in B" for the sides that are compiled paths.
std::string heldByText(const StepperRun& a, std::pair<NodeId, int> x, const StepperRun& b,
                       std::pair<NodeId, int> y) {
  std::string out;
  for (const auto& [run, at, side] : {std::tuple{&a, x, "A"}, std::tuple{&b, y, "B"}}) {
    if (run->program == nullptr) continue;
    if (!out.empty()) out += ", ";
    out.append("path node ").append(std::to_string(at.first)).append("[");
    out.append(std::to_string(at.second)).append("] in ").append(side);
  }
  return out;
}

}  // namespace

std::vector<NodePair> comparedNodes(const StepperRun& a, const StepperRun& b, std::string* what) {
  std::vector<NodePair> pairs;
  if (sameGraph(a, b)) {
    for (NodeId n : a.tracedNodes()) pairs.push_back({n, n, a.graph.node(n).name, false, {}});
    if (what) *what = "every program node (" + std::to_string(pairs.size()) + ")";
    return pairs;
  }
  if (inProgramTerms(a, b)) {
    const Graph& program = a.programGraph();
    for (NodeId n : a.programOrder()) {
      if (program.node(n).op == Op::Input) continue;  // equal by construction
      for (int c = 0; c < program.node(n).dim; ++c) {
        if (a.carrier(n, c) && b.carrier(n, c)) {
          pairs.push_back({n, n, program.node(n).name, true, enclosingFunction(program, n)});
          break;
        }
      }
    }
    if (what)
      *what =
          std::to_string(pairs.size()) +
          " program nodes held by both runs (compiled paths read through their labels) + output";
    pairs.push_back({kNoNode, kNoNode, "output", false, {}});
    return pairs;
  }
  if (const auto order = a.tracedNodes(); samePathStructure(a, b)) {
    const auto orderB = b.tracedNodes();
    for (size_t i = 0; i < order.size(); ++i)
      pairs.push_back({order[i], orderB[i], a.graph.node(order[i]).name, false, {}});
    if (what) *what = "every path node (" + std::to_string(pairs.size()) + "), paired by position";
    return pairs;
  }
  if (a.hasNodeTrace() && b.hasNodeTrace()) {
    const auto namesB = uniqueNames(b);
    for (const auto& [name, idA] : uniqueNames(a)) {
      const auto it = namesB.find(name);
      if (it == namesB.end() || idA == a.graph.output() || it->second == b.graph.output()) continue;
      if (a.graph.node(idA).op == Op::Input) continue;  // equal by construction
      if (a.graph.node(idA).dim != b.graph.node(it->second).dim) continue;
      pairs.push_back({idA, it->second, name, false, {}});
    }
    const auto order = a.tracedNodes();
    std::map<NodeId, size_t> rank;
    for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    std::sort(pairs.begin(), pairs.end(),
              [&](const NodePair& x, const NodePair& y) { return rank[x.a] < rank[y.a]; });
    if (what) {
      *what = pairs.empty() ? "outputs only (no other node names are shared)"
                            : std::to_string(pairs.size()) + " nodes mapped by name + output";
    }
  } else if (what) {
    *what = "outputs only";
  }
  pairs.push_back({kNoNode, kNoNode, "output", false, {}});
  return pairs;
}

Divergence firstDivergence(const StepperRun& a, const StepperRun& b, double tolerance) {
  Divergence d;
  const std::vector<NodePair> pairs = comparedNodes(a, b, &d.compared);
  const bool exact = a.isExact() && b.isExact();
  const int steps = std::min(a.steps(), b.steps());
  const auto* ea = std::get_if<ExactTrace>(&a.trace);
  const auto* eb = std::get_if<ExactTrace>(&b.trace);
  for (int t = 0; t < steps; ++t) {
    StepValues va(a, t), vb(b, t);
    for (const NodePair& p : pairs) {
      int c = -1;
      if (p.inProgramTerms) {
        for (int k = 0; k < a.programGraph().node(p.a).dim && c < 0; ++k) {
          const auto x = a.carrier(p.a, k), y = b.carrier(p.b, k);
          if (!x || !y || !entriesDiffer(va, *x, vb, *y, exact && ea && eb, tolerance)) continue;
          c = k;
          d.valueA = entryText(a, x->first, t, x->second);
          d.valueB = entryText(b, y->first, t, y->second);
          d.heldBy = heldByText(a, *x, b, *y);
        }
        if (c < 0) continue;
        d.found = true;
        d.step = t;
        d.node = p;
        d.component = c;
        return d;
      }
      if (p.a == kNoNode) {
        c = exact ? firstDifference(a.exactOutputs[static_cast<size_t>(t)],
                                    b.exactOutputs[static_cast<size_t>(t)], tolerance)
                  : firstDifference(a.floatOutputs[static_cast<size_t>(t)],
                                    b.floatOutputs[static_cast<size_t>(t)], tolerance);
      } else if (exact && ea != nullptr && eb != nullptr) {
        c = firstDifference(ea->value(p.a, t), eb->value(p.b, t), tolerance);
      } else {
        c = firstDifference(a.value(p.a, t), b.value(p.b, t), tolerance);
      }
      if (c < 0) continue;
      d.found = true;
      d.step = t;
      d.node = p;
      d.component = c;
      d.valueA = entryText(a, p.a, t, c);
      d.valueB = entryText(b, p.b, t, c);
      return d;
    }
  }
  return d;
}

std::string Divergence::describe() const {
  if (!found) return "no divergence (compared: " + compared + ")";
  std::string where;
  if (node.a == kNoNode) {
    where = "output";
  } else {
    where = (node.inProgramTerms ? "program node " : "node ") + std::to_string(node.a);
    if (node.b != node.a) where += "/" + std::to_string(node.b);
    if (!node.name.empty()) where += " '" + node.name + "'";
  }
  where.append("[").append(std::to_string(component)).append("]");
  if (!node.context.empty()) where += " in " + node.context;
  if (!heldBy.empty()) where += " (" + heldBy + ")";
  return "first divergence: t = " + std::to_string(step) + ", " + where + ": " + valueA + " vs " +
         valueB + " (compared: " + compared + ")";
}

}  // namespace lsrl::studio
