#include "app/layout/item_size.h"

#include <algorithm>

namespace lsrl {

std::string groupTitle(const Group& group) {
  std::string title = group.function + "(";
  for (size_t i = 0; i < group.params.size(); ++i) {
    if (i) title += ", ";
    title += group.params[i].first + "=" + group.params[i].second;
  }
  return title + ")";
}

ItemSize itemSize(const Graph& g, const VisibleItem& item) {
  if (item.kind == VisibleItem::Kind::Node) return {kNodeWidth, kNodeHeight};
  if (item.id < 0 || static_cast<size_t>(item.id) >= g.groups().size()) {
    return {kGroupMinWidth, kGroupHeight};
  }
  const std::string title = groupTitle(g.groups()[static_cast<size_t>(item.id)]);
  const double width = kGroupCharWidth * static_cast<double>(title.size()) + kGroupTitlePadding;
  return {std::max(kGroupMinWidth, width), kGroupHeight};
}

}  // namespace lsrl
