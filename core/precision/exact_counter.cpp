#include "core/precision/exact_counter.h"

#include <algorithm>

#include "core/graph/sugar_replay.h"
#include "core/precision/group_rebuild.h"
#include "core/util/error.h"

namespace lsrl {

std::optional<std::string> makeCounterExact(Graph& g, GroupId counter) {
  const Group& gr = g.groups()[static_cast<size_t>(counter)];
  if (gr.function != "f_modulo_counter") return "it is not an f_modulo_counter";
  if (auto why = differsFromItsCall(g, counter)) return why;
  const std::string* divisor = findParam(gr.params, "divisor");
  if (!divisor) return "it records no divisor";
  const int n = std::stoi(*divisor);
  // n = 1, 2: the rotation's cosines are 1, −1 and 0, already exact.
  if (n < 3) return "its divisor " + *divisor + " is exact as a rotation";
  // As f_modulo_counter builds it: the rotating state, the indicator Linear, the
  // f_larger call, the positions Linear.
  std::vector<NodeId> nodes = gr.nodes;
  std::sort(nodes.begin(), nodes.end());
  const NodeId cycler = nodes.front();
  const NodeId indicator = nodes[1];
  GroupId larger = kNoGroup;
  for (const Group& child : g.groups()) {
    if (child.parent == counter && child.function == "f_larger" && !child.removed)
      larger = child.id;
  }
  if (g.node(cycler).op != Op::LinState || g.node(indicator).op != Op::Linear || larger == kNoGroup)
    return "its nodes are not those f_modulo_counter builds";
  const SugarParams& comparison = g.groups()[static_cast<size_t>(larger)].params;
  if (auto why = rebuildInPlace(g, larger, withParams(comparison, {{"y", "1/2"}, {"scale", "4"}})))
    return why;

  Node& state = g.mutableNode(cycler);
  const int inputWidth = state.B.cols();
  std::vector<ExactMatrix::Entry> shift;
  for (int k = 0; k < n; ++k) shift.push_back({(k + 1) % n, k, Exact(1)});
  state.dim = n;
  state.A = ExactMatrix::fromEntries(n, n, std::move(shift));
  state.B = ExactMatrix(n, inputWidth);
  state.init = ExactVector(static_cast<size_t>(n), Exact(0));
  state.init[static_cast<size_t>(n - 1)] = Exact(1);  // the first value is e₀: position 0
  state.bias = ExactVector(static_cast<size_t>(n), Exact(0));
  Node& read = g.mutableNode(indicator);
  read.A = ExactMatrix::identity(n);
  read.b = ExactVector(static_cast<size_t>(n), Exact(0));
  return std::nullopt;
}

}  // namespace lsrl
