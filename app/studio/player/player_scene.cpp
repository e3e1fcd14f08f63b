#include "app/studio/player/player_scene.h"

#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QVariantAnimation>
#include <algorithm>
#include <cmath>

#include "app/layout/item_size.h"
#include "app/studio/editor/node_style.h"
#include "app/studio/editor/scene_point.h"

namespace lsrl::studio {

namespace {

constexpr int kAnimationMs = 200;
constexpr int kLayoutAnimationMs = 300;
const QColor kBranchColor(230, 110, 0);
const QColor kAddedColor(40, 150, 60);

// The input curves of one node, drawn with a cosmetic one-pixel pen: Qt strokes such a
// pen segment by segment, clipped to the screen, where a scaled pen has the whole curve
// (often thousands of pixels long at a readable zoom) stroked first — ten times slower
// per step. Zoomed far out the curves are paler so that the boxes stand out.
class PlayerEdgeItem : public QGraphicsPathItem {
 public:
  explicit PlayerEdgeItem(const QPainterPath& path) : QGraphicsPathItem(path) {
    // Not clickable: a press on an edge (whose open path covers a wide area) is a press on
    // the background, which pans.
    setAcceptedMouseButtons(Qt::NoButton);
  }

  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
             QWidget* /*widget*/) override {
    const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
    QColor color = edgeColor();
    if (detail < 0.4) color.setAlpha(110);
    QPen pen(color, 1);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
  }
};

StyleOp styleOf(const ReplayNodeInfo& info) {
  Node n;
  n.op = info.op;
  if (info.slice) n.slice = SliceTag{};
  return styleOpOf(n);
}

}  // namespace

// ---- PlayerNodeItem --------------------------------------------------------------

const QFont& PlayerNodeItem::labelFont() {
  static const QFont font = [] {
    QFont f;
    f.setPointSizeF(kLabelPointSize);
    return f;
  }();
  return font;
}

PlayerNodeItem::PlayerNodeItem(NodeId id, const ReplayNodeInfo& info)
    : id_(id),
      fill_(opFill(styleOf(info))),
      title_(QStringLiteral("#%1 %2 %3").arg(id).arg(styleOpName(styleOf(info))).arg(info.dim)),
      name_(QString::fromStdString(info.name)) {
  setZValue(1);
  setCursor(Qt::PointingHandCursor);
}

QRectF PlayerNodeItem::boundingRect() const {
  // Room for the widest frame drawn outside the box: the inspected node's ring.
  return {-kNodeWidth / 2 - 6, -kNodeHeight / 2 - 6, kNodeWidth + 12, kNodeHeight + 12};
}

void PlayerNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                           QWidget* /*widget*/) {
  const QRectF box(-kNodeWidth / 2, -kNodeHeight / 2, kNodeWidth, kNodeHeight);
  QPen pen(boxBorderColor(), 1);
  if (output_) pen = QPen(outputColor(), 3);
  if (mark_ == Mark::Added) pen = QPen(kAddedColor, 5);
  if (mark_ == Mark::Branch) pen = QPen(kBranchColor, 7);
  painter->setPen(pen);
  painter->setBrush(fill_);
  // Zoomed far out (the whole tok2tok graph): plain boxes, no text, to stay fast.
  const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
  const bool plain = detail < 0.3;
  if (plain) {
    painter->drawRect(box);
  } else {
    painter->drawRoundedRect(box, 6, 6);
  }
  if (inspected_) {
    // Around the box and its mark, so that a branch or new node stays recognisable.
    painter->setPen(QPen(selectionColor(), 3));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(box.adjusted(-3.5, -3.5, 3.5, 3.5), 9, 9);
  }
  if (plain) return;
  painter->setFont(labelFont());
  painter->setPen(textColor());
  painter->drawText(box.adjusted(6, 3, -6, -kNodeHeight / 2), Qt::AlignLeft | Qt::AlignVCenter,
                    title_);
  painter->setPen(secondaryTextColor());
  const QRectF nameBox = box.adjusted(6, kNodeHeight / 2, -6, -3);
  painter->drawText(
      nameBox, Qt::AlignLeft | Qt::AlignVCenter,
      painter->fontMetrics().elidedText(name_, Qt::ElideRight, static_cast<int>(nameBox.width())));
}

void PlayerNodeItem::setMark(Mark mark) {
  if (mark_ == mark) return;
  mark_ = mark;
  setZValue(mark == Mark::None ? 1 : 2);
  update();
}

void PlayerNodeItem::setOutput(bool output) {
  if (output_ == output) return;
  output_ = output;
  update();
}

void PlayerNodeItem::setInspected(bool inspected) {
  if (inspected_ == inspected) return;
  inspected_ = inspected;
  update();
}

void PlayerNodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  Q_EMIT clicked(id_);
  event->accept();
}

// ---- PlayerScene -----------------------------------------------------------------

PlayerScene::PlayerScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(sceneBackground());
  // Items appear and vanish by the hundred on a big jump: no BSP tree to rebuild.
  setItemIndexMethod(QGraphicsScene::NoIndex);
}

PlayerScene::~PlayerScene() { finishAnimation(); }

void PlayerScene::rebuild(const StepCursor* cursor) {
  finishAnimation();
  clear();
  nodes_.clear();
  edges_.clear();
  highlighted_.clear();
  placed_.clear();
  branch_ = kNoNode;
  data_ = cursor != nullptr ? &cursor->data() : nullptr;
  cursor_ = cursor;
  if (cursor == nullptr) return;
  const std::vector<NodeId> ids = cursor->aliveIds();
  for (NodeId id : ids) addNode(*cursor, id);
  for (NodeId id : ids) rebuildEdges(*cursor, id);
}

void PlayerScene::addNode(const StepCursor& cursor, NodeId id) {
  auto* item = new PlayerNodeItem(id, data_->info[static_cast<size_t>(id)]);
  item->setPos(toPoint(positionOf(id)));
  item->setOutput(cursor.output() == id);
  item->setInspected(id == inspected_);
  connect(item, &PlayerNodeItem::clicked, this, &PlayerScene::nodeClicked);
  addItem(item);
  nodes_[id] = item;
}

void PlayerScene::placeAfterLayout(const StepCursor& cursor, NodeId id,
                                   std::vector<NodePosition>& freed) {
  // The replay's places for new nodes are relative to its own (unlaid-out) places: once
  // a layout moved the boxes, the same rule as the replay's is applied to the places
  // drawn instead: a place that a node removed just now freed, else one layer right of
  // the inputs at their mean height; then down to the first place no drawn box holds.
  if (placed_.empty() || placed_.contains(id)) return;
  NodePosition p;
  if (!freed.empty()) {
    p = freed.front();
    freed.erase(freed.begin());
  } else {
    double x = 0;
    double ySum = 0;
    int count = 0;
    for (NodeId in : cursor.inputs(id)) {
      if (in < 0 || !nodes_.contains(in)) continue;
      const NodePosition q = positionOf(in);
      x = count == 0 ? q.x : std::max(x, q.x);
      ySum += q.y;
      ++count;
    }
    if (count == 0) return;  // nothing drawn to sit next to: the replay's place
    p = {x + kNodeWidth + kLayerGap, ySum / count};
  }
  auto taken = [&](const NodePosition& at) {
    for (const auto& [other, item] : nodes_) {
      if (other == id) continue;
      const NodePosition q = positionOf(other);
      if (std::abs(q.x - at.x) < kNodeWidth && std::abs(q.y - at.y) < kNodeHeight) return true;
    }
    return false;
  };
  // A few hundred boxes at most are drawn, and a step adds a handful: linear is fine.
  for (int tries = 0; tries < 100 && taken(p); ++tries) p.y += kNodeHeight + kSiblingGap;
  placed_[id] = p;
}

void PlayerScene::removeNode(NodeId id, bool animate) {
  auto remove = [&](QGraphicsItem* item) {
    if (animate) {
      vanishing_.push_back(item);
    } else {
      removeItem(item);
      delete item;
    }
  };
  if (auto it = nodes_.find(id); it != nodes_.end()) {
    remove(it->second);
    nodes_.erase(it);
  }
  if (auto it = edges_.find(id); it != edges_.end()) {
    remove(it->second);
    edges_.erase(it);
  }
}

void PlayerScene::rebuildEdges(const StepCursor& cursor, NodeId reader) {
  // Edges follow the boxes (which sit at their final places unless a layout slides them).
  auto drawnAt = [this](NodeId id) {
    const PlayerNodeItem* item = nodeItem(id);
    return item != nullptr ? item->pos() : toPoint(positionOf(id));
  };
  QPainterPath path;
  const QPointF to = drawnAt(reader) - QPointF(kNodeWidth / 2, 0);
  for (NodeId in : cursor.inputs(reader)) {
    if (in < 0 || !cursor.alive(in)) continue;
    const QPointF from = drawnAt(in) + QPointF(kNodeWidth / 2, 0);
    const double bend = std::max(40.0, std::abs(to.x() - from.x()) / 2);
    path.moveTo(from);
    path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
  }
  auto it = edges_.find(reader);
  if (it == edges_.end()) {
    auto* item = new PlayerEdgeItem(path);
    item->setPen(QPen(edgeColor(), 1));  // for its bounding rect; paint() picks the pen
    item->setZValue(0);
    addItem(item);
    edges_[reader] = item;
  } else {
    it->second->setPath(path);
  }
}

void PlayerScene::sync(const StepCursor& cursor, const std::vector<NodeId>& touched, bool animate,
                       NodePosition origin) {
  finishAnimation();
  if (data_ != &cursor.data()) {
    rebuild(&cursor);
    return;
  }
  cursor_ = &cursor;
  std::vector<NodeId> ids = touched;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Removed first, so that new nodes can take the places they free.
  std::vector<NodePosition> freed;
  for (NodeId id : ids) {
    if (!cursor.alive(id) && nodes_.contains(id)) {
      freed.push_back(positionOf(id));
      removeNode(id, animate);
    }
  }
  std::vector<NodeId> added;
  for (NodeId id : ids) {
    if (cursor.alive(id) && !nodes_.contains(id)) {
      placeAfterLayout(cursor, id, freed);
      addNode(cursor, id);
      added.push_back(id);
    }
  }
  for (NodeId id : ids) {
    if (cursor.alive(id)) rebuildEdges(cursor, id);
  }
  for (auto& [id, item] : nodes_) item->setOutput(id == cursor.output());
  if (!animate || (added.empty() && vanishing_.empty())) return;

  for (NodeId id : added) {
    PlayerNodeItem* item = nodes_.at(id);
    appearing_.push_back({item, toPoint(origin), item->pos()});
    item->setPos(toPoint(origin));
    item->setOpacity(0);
    if (auto it = edges_.find(id); it != edges_.end()) {
      it->second->setOpacity(0);
      fading_.push_back(it->second);
    }
  }
  animation_ = new QVariantAnimation(this);
  animation_->setStartValue(0.0);
  animation_->setEndValue(1.0);
  animation_->setDuration(kAnimationMs);
  animation_->setEasingCurve(QEasingCurve::OutCubic);
  connect(animation_, &QVariantAnimation::valueChanged, this, [this](const QVariant& value) {
    const double t = value.toDouble();
    for (const Appearing& a : appearing_) {
      a.item->setPos(a.from + (a.to - a.from) * t);
      a.item->setOpacity(t);
    }
    for (QGraphicsItem* item : fading_) item->setOpacity(t);
    for (QGraphicsItem* item : vanishing_) item->setOpacity(1 - t);
  });
  connect(animation_, &QVariantAnimation::finished, this, &PlayerScene::finishAnimation);
  animation_->start();
}

void PlayerScene::finishAnimation() {
  if (animation_ != nullptr) {
    QVariantAnimation* running = animation_;
    animation_ = nullptr;
    running->disconnect(this);
    running->stop();
    running->deleteLater();
  }
  for (const Appearing& a : appearing_) {
    a.item->setPos(a.to);
    a.item->setOpacity(1);
  }
  for (const Appearing& a : moving_) a.item->setPos(a.to);
  if (!moving_.empty()) rebuildAllEdges();
  moving_.clear();
  for (QGraphicsItem* item : fading_) item->setOpacity(1);
  for (QGraphicsItem* item : vanishing_) {
    removeItem(item);
    delete item;
  }
  appearing_.clear();
  fading_.clear();
  vanishing_.clear();
}

void PlayerScene::setHighlight(NodeId branch, const std::vector<NodeId>& added, NodeId output) {
  for (NodeId id : highlighted_) {
    if (PlayerNodeItem* item = nodeItem(id)) item->setMark(PlayerNodeItem::Mark::None);
  }
  highlighted_.clear();
  for (NodeId id : added) {
    if (PlayerNodeItem* item = nodeItem(id)) {
      item->setMark(PlayerNodeItem::Mark::Added);
      highlighted_.push_back(id);
    }
  }
  branch_ = branch;
  if (PlayerNodeItem* item = nodeItem(branch)) {
    item->setMark(PlayerNodeItem::Mark::Branch);
    highlighted_.push_back(branch);
  }
  if (PlayerNodeItem* item = nodeItem(output)) item->setOutput(true);
}

void PlayerScene::setInspected(NodeId id) {
  if (PlayerNodeItem* item = nodeItem(inspected_)) item->setInspected(false);
  inspected_ = id;
  if (PlayerNodeItem* item = nodeItem(id)) item->setInspected(true);
}

PlayerNodeItem* PlayerScene::nodeItem(NodeId id) const {
  auto it = nodes_.find(id);
  return it == nodes_.end() ? nullptr : it->second;
}

QRectF PlayerScene::nodesBounds() const {
  QRectF bounds;
  for (const auto& [id, item] : nodes_) {
    const NodePosition p = positionOf(id);
    bounds |= QRectF(p.x - kNodeWidth / 2, p.y - kNodeHeight / 2, kNodeWidth, kNodeHeight);
  }
  return bounds;
}

NodePosition PlayerScene::positionOf(NodeId id) const {
  if (auto it = placed_.find(id); it != placed_.end()) return it->second;
  return data_ != nullptr ? data_->positions[static_cast<size_t>(id)] : NodePosition{};
}

void PlayerScene::rebuildAllEdges() {
  if (cursor_ == nullptr) return;
  for (const auto& [id, item] : nodes_) rebuildEdges(*cursor_, id);
}

void PlayerScene::moveNodesTo(const std::map<NodeId, NodePosition>& to, bool animate) {
  finishAnimation();
  for (const auto& [id, p] : to) {
    placed_[id] = p;
    if (PlayerNodeItem* item = nodeItem(id)) moving_.push_back({item, item->pos(), toPoint(p)});
  }
  // Boxes drawn but not laid out (added after the step laid out, while playing) are
  // placed afresh beside their laid-out inputs. Ascending ids: inputs are mostly older
  // than their readers, so chains of new nodes follow along.
  if (cursor_ != nullptr) {
    std::vector<NodeId> stragglers;
    for (const auto& [id, item] : nodes_) {
      if (!to.contains(id)) stragglers.push_back(id);
    }
    std::sort(stragglers.begin(), stragglers.end());
    std::vector<NodePosition> none;
    for (NodeId id : stragglers) {
      const NodePosition old = positionOf(id);
      placed_.erase(id);
      placeAfterLayout(*cursor_, id, none);
      if (!placed_.contains(id)) placed_[id] = old;  // no input drawn: where it was
      PlayerNodeItem* item = nodes_.at(id);
      moving_.push_back({item, item->pos(), toPoint(placed_.at(id))});
    }
  }
  if (!animate || moving_.empty()) {
    finishAnimation();
    return;
  }
  animation_ = new QVariantAnimation(this);
  animation_->setStartValue(0.0);
  animation_->setEndValue(1.0);
  animation_->setDuration(kLayoutAnimationMs);
  animation_->setEasingCurve(QEasingCurve::InOutCubic);
  connect(animation_, &QVariantAnimation::valueChanged, this, [this](const QVariant& value) {
    const double t = value.toDouble();
    for (const Appearing& a : moving_) a.item->setPos(a.from + (a.to - a.from) * t);
    rebuildAllEdges();
  });
  connect(animation_, &QVariantAnimation::finished, this, &PlayerScene::finishAnimation);
  animation_->start();
}

bool PlayerScene::isBranchHighlighted(NodeId id) const {
  const PlayerNodeItem* item = nodeItem(id);
  return item != nullptr && id == branch_ && item->mark() == PlayerNodeItem::Mark::Branch;
}

}  // namespace lsrl::studio
