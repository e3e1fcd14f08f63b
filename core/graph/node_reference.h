// How a sugar group's parameters name a node operand ("node 12"): written by the sugar
// library, read back where ids are renumbered (graph edits, palette fragments).
#pragma once

#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace lsrl {

std::string nodeReferenceText(NodeId id);  // "node 12"
// The id a parameter value names, if it is exactly "node N".
std::optional<NodeId> parseNodeReference(const std::string& value);

}  // namespace lsrl
