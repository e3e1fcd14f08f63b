// Rebuilding a sugar call in place with other parameters (the precision pass's constants,
// docs/precision.md): the call is made again in a scratch graph (sugar_replay.h) and its
// values are copied into the group's nodes, keeping their ids, names and layout.
#pragma once

#include <optional>
#include <string>

#include "core/graph/graph.h"
#include "core/graph/sugar_replay.h"

namespace lsrl {

// Why the group's nodes are not what its function builds from its recorded parameters
// (edited by hand, or not rebuildable); none when they are.
std::optional<std::string> differsFromItsCall(const Graph& g, GroupId id);

// Rebuilds the call `top` (with the calls nested in it) with `params` in place: its nodes
// get the new values, its groups the new parameters. Returns why not when the group is not
// what its function builds, and changes nothing then.
std::optional<std::string> rebuildInPlace(Graph& g, GroupId top, const SugarParams& params);

}  // namespace lsrl
