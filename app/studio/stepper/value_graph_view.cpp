#include "app/studio/stepper/value_graph_view.h"

#include <QGraphicsRectItem>
#include <QPen>
#include <cmath>

#include "app/studio/editor/box_item.h"
#include "app/studio/editor/edge_item.h"
#include "app/studio/editor/graph_scene.h"

namespace lsrl::studio {

namespace {
// Tint items are children of the boxes (they move and vanish with them); this marks them.
constexpr int kTintKey = 0x5743;
}  // namespace

ValueGraphView::ValueGraphView(Document* doc, QWidget* parent)
    : ZoomPanView(parent), scene_(new GraphScene(doc, this)) {
  setScene(scene_);
  setInteractive(false);
  setRenderHint(QPainter::Antialiasing);
  connect(scene_, &GraphScene::rebuilt, this, [this] {
    applyTint();
    updateSceneRect();
  });
}

QRectF ValueGraphView::contentRect() const { return scene_->contentRect(); }

void ValueGraphView::centerOnNode(NodeId id) {
  // Hidden (a tab not shown yet), the viewport has no size to frame in: framed when shown.
  pendingNode_ = isVisible() ? kNoNode : id;
  if (pendingNode_ != kNoNode) return;
  const auto ref = scene_->visibleRefOfNode(id);
  BoxItem* box = ref ? scene_->boxOf(*ref) : nullptr;
  if (box == nullptr) return;
  const double z = std::max(zoom(), kReadableZoom);
  // The box with the boxes it reads and feeds when they fit, else the box alone.
  QRectF neighbourhood = box->sceneBoundingRect();
  for (const EdgeItem* edge : box->edges()) {
    const BoxItem* other = edge->source() == box ? edge->target() : edge->source();
    if (other != nullptr) neighbourhood |= other->sceneBoundingRect();
  }
  const QSizeF room = QSizeF(viewport()->size()) / z;
  const bool fits =
      neighbourhood.width() <= room.width() && neighbourhood.height() <= room.height();
  showAt(fits ? neighbourhood.center() : box->sceneBoundingRect().center(), z);
}

void ValueGraphView::showEvent(QShowEvent* event) {
  ZoomPanView::showEvent(event);
  if (pendingNode_ != kNoNode) centerOnNode(pendingNode_);
}

QColor ValueGraphView::colorFor(const std::vector<double>& value) {
  double big = 0;
  for (double x : value)
    if (std::fabs(x) > std::fabs(big)) big = x;
  if (big == 0 || !std::isfinite(big)) return QColor(245, 245, 245);
  // 1e-6 .. 1e10 mapped onto strength 0.15 .. 1.
  const double strength =
      std::clamp(0.15 + 0.85 * (std::log10(std::fabs(big)) + 6) / 16, 0.15, 1.0);
  const int fade = static_cast<int>(255 * (1 - strength));
  return big > 0 ? QColor(fade, fade + static_cast<int>(strength * 60), 255)
                 : QColor(255, fade, fade);
}

void ValueGraphView::showValues(const StepperRun* run, int t, NodeId marked) {
  run_ = run;
  step_ = t;
  marked_ = marked;
  applyTint();
}

void ValueGraphView::applyTint() {
  // The marked node may sit inside a collapsed group: its box is marked instead.
  const auto markedRef = marked_ == kNoNode ? std::nullopt : scene_->visibleRefOfNode(marked_);
  const BoxItem* markedBox = markedRef ? scene_->boxOf(*markedRef) : nullptr;
  for (BoxItem* box : scene_->boxes()) {
    QGraphicsRectItem* tint = nullptr;
    for (QGraphicsItem* child : box->childItems())
      if (child->data(kTintKey).toBool()) tint = static_cast<QGraphicsRectItem*>(child);
    const NodeId node = box->outputNode();
    // A compiled run shows the program nodes its path carries whole (provenance labels).
    const bool has =
        run_ != nullptr && step_ >= 0 && step_ < run_->steps() && run_->holdsProgramNode(node);
    const bool isMarked = box == markedBox;
    if (!has && !isMarked) {
      delete tint;
      continue;
    }
    if (tint == nullptr) {
      tint = new QGraphicsRectItem(box->boxRect(), box);
      tint->setData(kTintKey, true);
    }
    tint->setPen(isMarked ? QPen(QColor(220, 0, 0), 6) : QPen(Qt::NoPen));
    if (!has) {
      tint->setBrush(Qt::NoBrush);
      tint->setToolTip(QStringLiteral("first divergence: node #%1 inside").arg(marked_));
      continue;
    }
    QColor c = colorFor(run_->programValue(node, step_));
    c.setAlpha(150);
    tint->setBrush(c);
    const std::string& name = run_->programGraph().node(node).name;
    tint->setToolTip(QStringLiteral("#%1 %2\nt = %3: %4")
                         .arg(node)
                         .arg(QString::fromStdString(name))
                         .arg(step_)
                         .arg(QString::fromStdString(run_->programValueText(node, step_))));
  }
}

}  // namespace lsrl::studio
