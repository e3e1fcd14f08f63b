#include "app/studio/stepper/divergence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

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

}  // namespace

std::vector<NodePair> comparedNodes(const StepperRun& a, const StepperRun& b, std::string* what) {
  std::vector<NodePair> pairs;
  if (sameGraph(a, b)) {
    for (NodeId n : a.tracedNodes()) pairs.push_back({n, n, a.graph.node(n).name});
    if (what) *what = "every program node (" + std::to_string(pairs.size()) + ")";
    return pairs;
  }
  if (const auto order = a.tracedNodes(); samePathStructure(a, b)) {
    const auto orderB = b.tracedNodes();
    for (size_t i = 0; i < order.size(); ++i)
      pairs.push_back({order[i], orderB[i], a.graph.node(order[i]).name});
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
      pairs.push_back({idA, it->second, name});
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
  pairs.push_back({kNoNode, kNoNode, "output"});
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
    for (const NodePair& p : pairs) {
      int c = -1;
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
    where = "node " + std::to_string(node.a);
    if (node.b != node.a) where += "/" + std::to_string(node.b);
    if (!node.name.empty()) where += " '" + node.name + "'";
  }
  return "first divergence: t = " + std::to_string(step) + ", " + where + "[" +
         std::to_string(component) + "]: " + valueA + " vs " + valueB + " (compared: " + compared +
         ")";
}

}  // namespace lsrl::studio
