// The size of the box of each visible item, shared by the layout (dot, incremental
// placement) and the editor's scene so that laid-out boxes never overlap when drawn.
#pragma once

#include <string>

#include "app/layout/visible_graph.h"

namespace lsrl {

struct ItemSize {
  double width = 0;
  double height = 0;
};

constexpr double kNodeWidth = 150;
constexpr double kNodeHeight = 48;
constexpr double kGroupMinWidth = 170;
constexpr double kGroupHeight = 60;
// An expanded group's frame around its members' boxes: padding, plus a title bar on top.
constexpr double kFramePadding = 14;
constexpr double kFrameTitleHeight = 22;

// Room between boxes (dot's ranksep and nodesep, incremental placement's gaps).
constexpr double kLayerGap = 70;
constexpr double kSiblingGap = 24;

constexpr double kGroupCharWidth = 7;
constexpr double kGroupTitlePadding = 24;  // left + right margin of the title

// Node boxes are fixed; a collapsed group box is wide enough for its title line
// ("f_larger(scale=1000)") at about 7 px per character.
ItemSize itemSize(const Graph& g, const VisibleItem& item);

// A group's title line: "f_larger(scale=1000)" (function and parameters in call order).
std::string groupTitle(const Group& group);

}  // namespace lsrl
