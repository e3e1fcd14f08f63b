#include "app/studio/editor/graph_view.h"

#include <QApplication>
#include <QClipboard>
#include <QCursor>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <cmath>

#include "app/layout/item_size.h"
#include "app/studio/common/palette_mime.h"
#include "app/studio/editor/box_item.h"
#include "app/studio/editor/graph_clipboard.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/group_frame_item.h"
#include "app/studio/editor/legend_widget.h"
#include "core/graph/fragment.h"
#include "core/util/error.h"

namespace lsrl::studio {

GraphView::GraphView(Document* document, QWidget* parent)
    : ZoomPanView(parent),
      document_(document),
      scene_(new GraphScene(document, this)),
      legend_(new LegendWidget(this)) {
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setViewportUpdateMode(SmartViewportUpdate);
  setOptimizationFlags(DontSavePainterState | DontAdjustForAntialiasing);
  // A left drag on the background selects with a rubber band; Alt + left pans.
  setDragMode(RubberBandDrag);
  setBackgroundDragPans(false);
  setRubberBandSelectionMode(Qt::IntersectsItemShape);
  // Never larger than actual size when fitting: a small graph fitted to a big window
  // would be drawn at 300 % with giant text.
  setFitZoomLimit(1.0);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  connect(scene_, &GraphScene::selectedRefsChanged, this, &GraphView::selectionChanged);
  connect(scene_, &GraphScene::statusMessage, this, &GraphView::statusMessage);
  connect(scene_, &GraphScene::rebuilt, this, &GraphView::updateSceneRect);
  connect(document_, &Document::positionsChanged, this, &GraphView::updateSceneRect);
  zoomApplied();
  placeLegend();
}

QList<ItemRef> GraphView::selectedItems() const { return scene_->selectedRefs(); }

NodePosition GraphView::viewCentre() const {
  const QPointF c = mapToScene(viewport()->rect().center());
  return NodePosition{c.x(), c.y()};
}

NodePosition GraphView::placeForNewItem() const {
  const BoxItem* rightmost = nullptr;
  for (const ItemRef& ref : selectedItems()) {
    const BoxItem* box = scene_->boxOf(ref);
    if (box && (!rightmost || box->scenePos().x() > rightmost->scenePos().x())) rightmost = box;
  }
  if (rightmost) {
    const QRectF beside = rightmost->mapRectToScene(rightmost->boxRect());
    return NodePosition{beside.right() + kLayerGap + kNodeWidth / 2, beside.center().y()};
  }
  const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
  if (viewport()->underMouse() && viewport()->rect().contains(cursor)) {
    const QPointF at = mapToScene(cursor);
    return NodePosition{at.x(), at.y()};
  }
  return viewCentre();
}

QRectF GraphView::contentRect() const { return scene_->contentRect(); }

void GraphView::zoomApplied() { scene_->setDetailCaching(zoom() >= kDetailZoom); }

void GraphView::setLegendVisible(bool visible) { legend_->setVisible(visible); }

bool GraphView::isLegendVisible() const { return !legend_->isHidden(); }

void GraphView::placeLegend() {
  // A child of the view, not of the viewport, so that scrolling does not move it.
  const QRect vp = viewport()->geometry();
  legend_->move(vp.left() + 10, vp.bottom() - legend_->height() - 10);
  legend_->raise();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  ZoomPanView::resizeEvent(event);
  placeLegend();
}

void GraphView::centerOnScene(QPointF scenePos) {
  centerOn(scenePos);
  Q_EMIT viewportChanged();
}

void GraphView::selectAndCenter(ItemRef item) {
  const Graph& g = document_->graph();
  BoxItem* box = scene_->boxOf(item);
  if (!box && item.kind == ItemRef::Kind::Group && g.containsGroup(item.id)) {
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

// ---- keys ----------------------------------------------------------------------------

void GraphView::keyPressEvent(QKeyEvent* event) {
  const bool ctrl = event->modifiers() & Qt::ControlModifier;
  switch (event->key()) {
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
  ZoomPanView::keyPressEvent(event);  // zoom keys, Space to pan
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
