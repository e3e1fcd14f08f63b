#include "core/graph/node_description.h"

namespace lsrl {

namespace {

constexpr size_t kMaxNameShown = 80;

}  // namespace

std::string describeNode(const Node& node) {
  std::string s = "node " + std::to_string(node.id) + " (" + std::string(node.countedOpName());
  if (!node.name.empty()) {
    s += " '" + node.name.substr(0, kMaxNameShown);
    s += node.name.size() > kMaxNameShown ? "...'" : "'";
  }
  return s + ")";
}

std::string describeNode(const Graph& graph, NodeId id) { return describeNode(graph.node(id)); }

}  // namespace lsrl
