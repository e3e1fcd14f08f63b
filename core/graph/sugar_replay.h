// Calls a sugar function again from what its group recorded (Group::function and
// Group::params, as sugar.cpp writes them), optionally with other constants. The
// compiler's precision pass uses it to rebuild a group with constants fitted to the
// input domain (docs/precision.md).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/builder.h"

namespace lsrl {

using SugarParams = std::vector<std::pair<std::string, std::string>>;

// Builds `function(params)` in `g`. A parameter that names a node ("node 12") is resolved
// by `nodeFor(12)`; "none" is an omitted branch; others are read in the scalar grammar.
// Throws lsrl::Error for a function it cannot rebuild or a parameter it cannot read.
Var replaySugar(Graph& g, const std::string& function, const SugarParams& params,
                const std::function<Var(NodeId)>& nodeFor);

// The value recorded under `key`, or null.
const std::string* findParam(const SugarParams& params, const std::string& key);

// `params` with the values in `changed` substituted (keys must exist).
SugarParams withParams(SugarParams params, const std::map<std::string, std::string>& changed);

}  // namespace lsrl
