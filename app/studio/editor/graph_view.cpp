#include "app/studio/editor/graph_view.h"

#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

#include "app/studio/editor/box_item.h"
#include "app/studio/editor/graph_clipboard.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/group_frame_item.h"
#include "app/studio/editor/legend_widget.h"
#include "app/studio/panels/palette_panel.h"
#include "core/graph/fragment.h"
#include "core/util/error.h"

namespace lsrl::studio {

GraphView::GraphView(Document* document, QWidget* parent)
    : QGraphicsView(parent),
      document_(document),
      scene_(new GraphScene(document, this)),
      legend_(new LegendWidget(this)) {
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setViewportUpdateMode(SmartViewportUpdate);
  setOptimizationFlags(DontSavePainterState | DontAdjustForAntialiasing);
  setTransformationAnchor(AnchorUnderMouse);
  setResizeAnchor(AnchorViewCenter);
  setDragMode(RubberBandDrag);
  setRubberBandSelectionMode(Qt::IntersectsItemShape);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setFocusPolicy(Qt::StrongFocus);
  connect(scene_, &GraphScene::selectedRefsChanged, this, &GraphView::selectionChanged);
  connect(scene_, &GraphScene::statusMessage, this, &GraphView::statusMessage);
  connect(scene_, &GraphScene::rebuilt, this, &GraphView::updateSceneRect);
  connect(document_, &Document::positionsChanged, this, &GraphView::updateSceneRect);
  zoomChanged();
  placeLegend();
}

QList<ItemRef> GraphView::selectedItems() const { return scene_->selectedRefs(); }

NodePosition GraphView::viewCentre() const {
  const QPointF c = mapToScene(viewport()->rect().center());
  return NodePosition{c.x(), c.y()};
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::zoomChanged() {
  scene_->setDetailCaching(zoom() >= kDetailZoom);
  updateSceneRect();
  Q_EMIT viewportChanged();
}

void GraphView::updateSceneRect() {
  // Leave a viewport's worth of room around the content so it can be panned freely.
  const QRectF content = scene_->contentRect();
  const double z = std::max(zoom(), kMinZoom);
  const double mx = viewport()->width() / z;
  const double my = viewport()->height() / z;
  setSceneRect(content.adjusted(-mx, -my, mx, my));
}

void GraphView::setLegendVisible(bool visible) { legend_->setVisible(visible); }

bool GraphView::isLegendVisible() const { return !legend_->isHidden(); }

void GraphView::placeLegend() {
  // A child of the view, not of the viewport, so that scrolling does not move it.
  const QRect vp = viewport()->geometry();
  legend_->move(vp.left() + 10, vp.bottom() - legend_->height() - 10);
  legend_->raise();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeLegend();
  updateSceneRect();
  Q_EMIT viewportChanged();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  Q_EMIT viewportChanged();
}

void GraphView::zoomBy(double factor) {
  const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
  if (target == zoom()) return;
  const double applied = target / zoom();
  scale(applied, applied);
  zoomChanged();
}

void GraphView::setZoom(double zoom) {
  const QPointF centre = mapToScene(viewport()->rect().center());
  const double z = std::clamp(zoom, kMinZoom, kMaxZoom);
  setTransform(QTransform::fromScale(z, z));
  zoomChanged();
  centerOn(centre);
}

void GraphView::zoomIn() {
  const ViewportAnchor anchor = transformationAnchor();
  setTransformationAnchor(AnchorViewCenter);
  zoomBy(1.25);
  setTransformationAnchor(anchor);
}

void GraphView::zoomOut() {
  const ViewportAnchor anchor = transformationAnchor();
  setTransformationAnchor(AnchorViewCenter);
  zoomBy(1 / 1.25);
  setTransformationAnchor(anchor);
}

void GraphView::resetZoom() { setZoom(1); }

void GraphView::fitAll() {
  QRectF content = scene_->contentRect();
  if (content.isEmpty()) content = QRectF(-200, -150, 400, 300);
  const double margin = 0.04 * std::max(content.width(), content.height()) + 20;
  content.adjust(-margin, -margin, margin, margin);
  const QRect vp = viewport()->rect();
  const double z = std::clamp(
      std::min(vp.width() / content.width(), vp.height() / content.height()), kMinZoom, kMaxZoom);
  setTransform(QTransform::fromScale(z, z));
  zoomChanged();
  centerOn(content.center());
}

void GraphView::centerOnScene(QPointF scenePos) {
  centerOn(scenePos);
  Q_EMIT viewportChanged();
}

void GraphView::selectAndCenter(ItemRef item) {
  const Graph& g = document_->graph();
  BoxItem* box = scene_->boxOf(item);
  if (!box && item.kind == ItemRef::Kind::Group && item.id >= 0 &&
      item.id < static_cast<GroupId>(g.groups().size())) {
    const Group& group = g.groups()[item.id];
    if (GroupFrameItem* frame = scene_->frameOf(item.id)) {
      // An expanded group: its members, around the frame's centre.
      scene_->selectGroupMembers(item.id);
      if (zoom() < 0.6) setZoom(0.8);
      centerOnScene(frame->frameRect().center());
      return;
    }
    // Hidden inside a collapsed group: shown by that group's box.
    if (!group.nodes.empty())
      item = ItemRef{ItemRef::Kind::Node, group.output != kNoNode ? group.output : group.nodes[0]};
  }
  if (!box && item.kind == ItemRef::Kind::Node) {
    if (const auto shown = scene_->visibleRefOfNode(item.id)) box = scene_->boxOf(*shown);
  }
  if (!box) return;
  scene_->selectRefs({box->ref()});
  // Zoom in far enough to read the box if the view is zoomed far out.
  if (zoom() < 0.6) setZoom(0.8);
  centerOnScene(box->scenePos());
}

// ---- zoom and pan ------------------------------------------------------------------

void GraphView::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  if (delta.y() == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  zoomBy(std::pow(1.0015, delta.y()));  // one notch (120) = 20 %
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  const bool onBackground = !itemAt(event->pos());
  const bool pan = event->button() == Qt::MiddleButton ||
                   (event->button() == Qt::LeftButton &&
                    (spaceHeld_ || ((event->modifiers() & Qt::AltModifier) && onBackground)));
  if (pan) {
    panning_ = true;
    lastPanPos_ = event->pos();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint delta = event->pos() - lastPanPos_;
    lastPanPos_ = event->pos();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_) {
    panning_ = false;
    if (spaceHeld_)
      viewport()->setCursor(Qt::OpenHandCursor);
    else
      viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  const bool ctrl = event->modifiers() & Qt::ControlModifier;
  switch (event->key()) {
    case Qt::Key_Space:
      if (!event->isAutoRepeat()) {
        spaceHeld_ = true;
        viewport()->setCursor(Qt::OpenHandCursor);
      }
      event->accept();
      return;
    case Qt::Key_Delete:
    case Qt::Key_Backspace:
      deleteSelection();
      event->accept();
      return;
    case Qt::Key_F:
      if (!ctrl) {
        fitAll();
        event->accept();
        return;
      }
      break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomIn();
      event->accept();
      return;
    case Qt::Key_Minus:
      zoomOut();
      event->accept();
      return;
    case Qt::Key_C:
      if (ctrl) {
        copySelection();
        event->accept();
        return;
      }
      break;
    case Qt::Key_V:
      if (ctrl) {
        pasteClipboard();
        event->accept();
        return;
      }
      break;
    case Qt::Key_D:
      if (ctrl) {
        duplicateSelection();
        event->accept();
        return;
      }
      break;
    default:
      break;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    spaceHeld_ = false;
    if (!panning_) viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::keyReleaseEvent(event);
}

// ---- copy, paste, delete -----------------------------------------------------------

void GraphView::copySelection() {
  const std::vector<NodeId> nodes = nodesOfItems(document_->graph(), selectedItems());
  if (nodes.empty()) {
    Q_EMIT statusMessage(tr("Nothing selected to copy."));
    return;
  }
  const Graph fragment = extractFragment(document_->graph(), nodes);
  QApplication::clipboard()->setMimeData(fragmentMimeData(fragment));
  Q_EMIT statusMessage(tr("Copied %n node(s).", nullptr, static_cast<int>(nodes.size())));
}

void GraphView::pasteFragment(const Graph& fragment, NodePosition at, const QString& what) {
  if (fragment.nodeCount() == 0) return;
  const std::vector<NodeId> ids = document_->insertFragment(fragment, at, what);
  QList<ItemRef> refs;
  for (NodeId id : ids) {
    const auto ref = scene_->visibleRefOfNode(id);
    if (ref && !refs.contains(*ref)) refs.append(*ref);
  }
  scene_->selectRefs(refs);
  Q_EMIT statusMessage(tr("%1: %n node(s).", nullptr, static_cast<int>(ids.size())).arg(what));
}

void GraphView::pasteClipboard() {
  try {
    const auto fragment = fragmentFromMimeData(QApplication::clipboard()->mimeData());
    if (!fragment) {
      Q_EMIT statusMessage(tr("The clipboard holds no graph."));
      return;
    }
    // Successive pastes at the same place are stepped so they do not cover each other.
    NodePosition at = viewCentre();
    if (std::abs(at.x - lastPasteCentre_.x) < 1 && std::abs(at.y - lastPasteCentre_.y) < 1)
      ++pasteCount_;
    else
      pasteCount_ = 1;
    lastPasteCentre_ = at;
    at.x += 40 * pasteCount_;
    at.y += 40 * pasteCount_;
    pasteFragment(*fragment, at, tr("Paste"));
  } catch (const Error& e) {
    Q_EMIT statusMessage(tr("Cannot paste: %1").arg(QString::fromUtf8(e.what())));
  }
}

void GraphView::duplicateSelection() {
  const QList<ItemRef> items = selectedItems();
  const std::vector<NodeId> nodes = nodesOfItems(document_->graph(), items);
  if (nodes.empty()) return;
  QRectF bounds;
  for (const ItemRef& ref : items)
    if (BoxItem* box = scene_->boxOf(ref)) bounds |= box->sceneBoundingRect();
  try {
    const Graph fragment = extractFragment(document_->graph(), nodes);
    pasteFragment(fragment, NodePosition{bounds.center().x() + 40, bounds.center().y() + 40},
                  tr("Duplicate"));
  } catch (const Error& e) {
    Q_EMIT statusMessage(tr("Cannot duplicate: %1").arg(QString::fromUtf8(e.what())));
  }
}

void GraphView::deleteSelection() {
  const std::vector<NodeId> nodes = nodesOfItems(document_->graph(), selectedItems());
  if (nodes.empty()) return;
  try {
    document_->removeNodes(nodes);
    Q_EMIT statusMessage(tr("Deleted %n node(s).", nullptr, static_cast<int>(nodes.size())));
  } catch (const Error& e) {
    Q_EMIT statusMessage(tr("Cannot delete: %1").arg(QString::fromUtf8(e.what())));
  }
}

// Palette entries dragged onto the view are inserted where they are dropped.
void GraphView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasFormat(QString::fromLatin1(kPaletteMimeType))) {
    event->acceptProposedAction();
  } else {
    QGraphicsView::dragEnterEvent(event);
  }
}

void GraphView::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasFormat(QString::fromLatin1(kPaletteMimeType))) {
    event->acceptProposedAction();
  } else {
    QGraphicsView::dragMoveEvent(event);
  }
}

void GraphView::dropEvent(QDropEvent* event) {
  const QString format = QString::fromLatin1(kPaletteMimeType);
  if (!event->mimeData()->hasFormat(format)) {
    QGraphicsView::dropEvent(event);
    return;
  }
  const QPointF at = mapToScene(event->position().toPoint());
  event->acceptProposedAction();
  Q_EMIT paletteItemDropped(QString::fromUtf8(event->mimeData()->data(format)),
                            NodePosition{at.x(), at.y()});
}

}  // namespace lsrl::studio
