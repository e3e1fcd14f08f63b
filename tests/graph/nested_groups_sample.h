// The graph the editor's structural edits are tested on: nested sugar groups, a Concat
// reading one node twice, every node and group placed.
#pragma once

#include "core/graph/graph.h"

namespace lsrl::testing_graph {

// x(0) -> [f_outer: a = ReLU(x) (1), [f_inner: b = ReLU(a) (2)], c = Concat(a, b, a) (3)]
// -> d = ReLU(c) (4), the output. Every node and both groups have a position.
inline Graph nestedGroupsSample() {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  GroupScope outer(g, "f_outer", {{"mu", "2"}});
  const NodeId a = g.addReLU(x, "a");
  GroupScope inner(g, "f_inner");
  const NodeId b = inner.finish(g.addReLU(a, "b"));
  const NodeId c = outer.finish(g.addConcat({a, b, a}, "c"));
  g.setOutput(g.addReLU(c, "d"));
  for (NodeId id = 0; id < 5; ++id) g.layout()[id] = {100.0 * id, 10.0 * id};
  g.groupLayout()[0] = {1, 1};
  g.groupLayout()[1] = {2, 2};
  g.mutableGroup(1).expanded = true;
  return g;
}

}  // namespace lsrl::testing_graph
