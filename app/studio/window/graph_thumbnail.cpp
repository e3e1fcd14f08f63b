#include "app/studio/window/graph_thumbnail.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <map>
#include <vector>

#include "app/layout/incremental_layout.h"
#include "app/layout/item_size.h"
#include "app/layout/visible_graph.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

namespace {

// How far one axis may be stretched beyond the other: more_ones is twenty times wider
// than tall, and at one scale it would be a strip a few pixels high.
constexpr double kMaxStretch = 3.0;
constexpr double kMarginPx = 6;
// Boxes stay visible when a thousand-node program is drawn 200 pixels wide.
constexpr double kMinBoxPx = 2.5;
// Below this width a box gets no outline: it would be all outline.
constexpr double kOutlineMinPx = 7;

struct PlacedItem {
  QRectF rect;  // scene coordinates
  QColor fill;
};

// The centre of each visible item: the stored layout, else (a file without a layout) a
// layered placement of every node, a group box at the middle of its members.
std::vector<PlacedItem> placeItems(const Graph& g, const VisibleGraph& vg) {
  std::map<NodeId, NodePosition> placed;
  auto nodeCentre = [&](NodeId id) -> NodePosition {
    if (auto it = g.layout().find(id); it != g.layout().end()) return it->second;
    if (placed.empty()) {
      std::vector<NodeId> live;
      for (const Node& n : g.nodes())
        if (!n.removed) live.push_back(n.id);
      placed = layeredPlacement(g, live, NodePosition{});
    }
    const auto it = placed.find(id);
    return it != placed.end() ? it->second : NodePosition{};
  };
  auto groupCentre = [&](GroupId id) -> NodePosition {
    if (auto it = g.groupLayout().find(id); it != g.groupLayout().end()) return it->second;
    QRectF members;
    for (NodeId member : g.groups()[static_cast<size_t>(id)].nodes) {
      const NodePosition p = nodeCentre(member);
      members = members.united(QRectF(p.x, p.y, 1, 1));
    }
    return NodePosition{members.center().x(), members.center().y()};
  };

  std::vector<PlacedItem> items;
  items.reserve(vg.items.size());
  for (const VisibleItem& item : vg.items) {
    const bool isNode = item.kind == VisibleItem::Kind::Node;
    const NodePosition c = isNode ? nodeCentre(item.id) : groupCentre(item.id);
    const ItemSize size = itemSize(g, item);
    const QRectF rect(c.x - size.width / 2, c.y - size.height / 2, size.width, size.height);
    // At thumbnail size a group box is drawn as the editor draws it zoomed out.
    const QColor fill = isNode ? opFill(styleOpOf(g.node(item.id))) : groupFill().darker(115);
    items.push_back({rect, fill});
  }
  return items;
}

// Maps scene rectangles into the picture: one scale, except that the under-filled axis
// may be stretched up to kMaxStretch times; the drawing is centred.
class ThumbnailMapping {
 public:
  ThumbnailMapping(const QRectF& scene, QSizeF target) {
    const QSizeF room(std::max(1.0, target.width() - 2 * kMarginPx),
                      std::max(1.0, target.height() - 2 * kMarginPx));
    const double fitX = room.width() / std::max(1.0, scene.width());
    const double fitY = room.height() / std::max(1.0, scene.height());
    const double uniform = std::min(fitX, fitY);
    sx_ = std::min(fitX, uniform * kMaxStretch);
    sy_ = std::min(fitY, uniform * kMaxStretch);
    const QSizeF drawn(scene.width() * sx_, scene.height() * sy_);
    offset_ = QPointF(kMarginPx + (room.width() - drawn.width()) / 2 - scene.left() * sx_,
                      kMarginPx + (room.height() - drawn.height()) / 2 - scene.top() * sy_);
  }
  QRectF map(const QRectF& r) const {
    QRectF out(r.left() * sx_ + offset_.x(), r.top() * sy_ + offset_.y(), r.width() * sx_,
               r.height() * sy_);
    // Tiny boxes grow about their centre.
    const QPointF c = out.center();
    out.setWidth(std::max(out.width(), kMinBoxPx));
    out.setHeight(std::max(out.height(), kMinBoxPx));
    out.moveCenter(c);
    return out;
  }

 private:
  double sx_ = 1;
  double sy_ = 1;
  QPointF offset_;
};

// From the producer's right side to the consumer's left side, with horizontal tangents
// like the editor's edges (backward edges bow out).
QPainterPath edgePath(QPointF from, QPointF to) {
  const double dx = to.x() - from.x();
  const double bend = dx > 0 ? std::max(4.0, dx / 2) : std::max(10.0, -dx / 2);
  QPainterPath path(from);
  path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
  return path;
}

}  // namespace

QImage renderGraphThumbnail(const Graph& graph, QSize size, qreal devicePixelRatio) {
  const QSize pixels = (QSizeF(size) * devicePixelRatio).toSize().expandedTo(QSize(1, 1));
  QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(devicePixelRatio);
  image.fill(sceneBackground());

  const VisibleGraph vg = visibleGraph(graph);
  if (vg.items.empty()) return image;
  const std::vector<PlacedItem> items = placeItems(graph, vg);
  QRectF bounds;
  for (const PlacedItem& item : items) bounds = bounds.united(item.rect);
  const ThumbnailMapping mapping(bounds, QSizeF(size));
  std::vector<QRectF> drawn;
  drawn.reserve(items.size());
  for (const PlacedItem& item : items) drawn.push_back(mapping.map(item.rect));

  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  QColor edge = edgeColor();
  edge.setAlpha(150);
  painter.setPen(QPen(edge, 0.8));
  painter.setBrush(Qt::NoBrush);
  for (const VisibleEdge& e : vg.edges) {
    if (e.from < 0 || e.to < 0) continue;
    const QRectF& from = drawn[static_cast<size_t>(e.from)];
    const QRectF& to = drawn[static_cast<size_t>(e.to)];
    painter.drawPath(
        edgePath(QPointF(from.right(), from.center().y()), QPointF(to.left(), to.center().y())));
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const QRectF& r = drawn[i];
    painter.setPen(r.width() >= kOutlineMinPx ? QPen(boxBorderColor(), 0.8) : Qt::NoPen);
    painter.setBrush(items[i].fill);
    painter.drawRect(r);
  }
  return image;
}

}  // namespace lsrl::studio
