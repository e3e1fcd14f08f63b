// Walking the nesting of sugar groups, as the precision analyses do: which calls end at a
// node (innermost first, the order their contracts apply), the call a user made around a
// group, and whether a group lies inside a call of some function.
#pragma once

#include <map>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

// Live groups by their output node, innermost (highest id) first.
std::map<NodeId, std::vector<GroupId>> groupsByOutput(const Graph& g);

// The outermost group around `id` (`id` itself when it has no parent).
GroupId outermostGroup(const Graph& g, GroupId id);

// Whether some strict ancestor of `gr` is a call of `function`.
bool insideCallOf(const Graph& g, const Group& gr, std::string_view function);

// Whether `id` is `ancestor` or nested in it.
bool withinGroup(const Graph& g, GroupId id, GroupId ancestor);

}  // namespace lsrl
