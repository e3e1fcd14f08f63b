#include "core/graph/node_reference.h"

#include <charconv>
#include <string_view>

namespace lsrl {

namespace {
constexpr std::string_view kPrefix = "node ";
}  // namespace

std::string nodeReferenceText(NodeId id) { return std::string(kPrefix) + std::to_string(id); }

std::optional<NodeId> parseNodeReference(const std::string& value) {
  if (!value.starts_with(kPrefix) || value.size() == kPrefix.size()) return std::nullopt;
  const char* first = value.data() + kPrefix.size();
  const char* last = value.data() + value.size();
  if (*first < '0' || *first > '9') return std::nullopt;  // no sign, no space
  NodeId id = kNoNode;
  const auto [end, ec] = std::from_chars(first, last, id);
  if (ec != std::errc() || end != last) return std::nullopt;
  return id;
}

}  // namespace lsrl
