// Widths that follow from other values: a ReLU is as wide as its input, a Multi half as
// wide, a Concat the sum of its inputs, a Linear or LinState as wide as A has rows (and
// its offset vectors follow), a Slice as wide as its range (its selection matrix follows
// its input's width). The editor re-derives them after every edit so that only real
// mismatches (a Linear whose A has the wrong number of columns) remain as problems.
#pragma once

#include <functional>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

// Re-derives the widths of `seeds` and everything downstream of a node whose width
// changed. Inputs naming no node count as absent; a Concat with an unconnected slot
// (kNoNode) keeps its width, which that slot's operand decides once it is wired.
// `willChange`, when given, is told each node's id just before its record changes (the
// editor's undo records it). Terminates on cyclic graphs (from files).
void rederiveWidths(Graph& g, const std::vector<NodeId>& seeds,
                    const std::function<void(NodeId)>& willChange = {});

}  // namespace lsrl
