#include "app/studio/editor/graph_scene.h"

#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QTimer>
#include <QToolTip>
#include <algorithm>
#include <set>

#include "app/layout/item_size.h"
#include "app/studio/editor/edge_item.h"
#include "app/studio/editor/group_frame_item.h"
#include "app/studio/editor/group_item.h"
#include "app/studio/editor/node_item.h"
#include "app/studio/editor/node_style.h"
#include "app/studio/editor/scene_point.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

ItemRef refOf(const VisibleItem& item) {
  return ItemRef{item.kind == VisibleItem::Kind::Node ? ItemRef::Kind::Node : ItemRef::Kind::Group,
                 item.id};
}

bool isBox(const QGraphicsItem* item) {
  return item->type() == NodeItem::Type || item->type() == GroupItem::Type;
}

}  // namespace

GraphScene::GraphScene(Document* document, QObject* parent)
    : QGraphicsScene(parent), document_(document) {
  setBackgroundBrush(sceneBackground());
  connect(document_, &Document::changed, this, &GraphScene::applyChange);
  connect(this, &QGraphicsScene::selectionChanged, this, [this] {
    if (!building_) emitSelection();
  });
  rebuild();
}

GraphScene::~GraphScene() {
  // QGraphicsScene's destructor deletes the items, which reports selection changes:
  // nothing may read boxes_ from then on.
  building_ = true;
  boxes_.clear();
  boxByRef_.clear();
  edges_.clear();
  frames_.clear();
  framesInnermostFirst_.clear();
}

BoxItem* GraphScene::boxOf(ItemRef ref) const {
  const auto it = boxByRef_.find(ref);
  return it == boxByRef_.end() ? nullptr : it->second;
}

BoxItem* GraphScene::boxOfNode(NodeId id) const {
  const auto ref = visibleRefOfNode(id);
  return ref ? boxOf(*ref) : nullptr;
}

std::optional<ItemRef> GraphScene::visibleRefOfNode(NodeId id) const {
  const VisibleGraph& v = document_->visible();
  if (id < 0 || id >= static_cast<NodeId>(v.itemOfNode.size())) return std::nullopt;
  const int index = v.itemOfNode[id];
  if (index < 0 || index >= static_cast<int>(v.items.size())) return std::nullopt;
  return refOf(v.items[index]);
}

GroupFrameItem* GraphScene::frameOf(GroupId id) const {
  const auto it = frames_.find(id);
  return it == frames_.end() ? nullptr : it->second;
}

void GraphScene::setDetailCaching(bool on) {
  if (on == detailCaching_) return;
  detailCaching_ = on;
  for (BoxItem* box : boxes_)
    box->setCacheMode(on ? QGraphicsItem::DeviceCoordinateCache : QGraphicsItem::NoCache);
}

QList<ItemRef> GraphScene::selectedRefs() const {
  QList<ItemRef> refs;
  for (BoxItem* box : boxes_)
    if (box->isSelected()) refs.append(box->ref());
  return refs;
}

void GraphScene::selectRefs(const QList<ItemRef>& refs) {
  const bool wasBuilding = building_;
  building_ = true;  // one selection signal for the whole change
  clearSelection();
  for (const ItemRef& ref : refs)
    if (BoxItem* box = boxOf(ref)) box->setSelected(true);
  building_ = wasBuilding;
  if (!building_) emitSelection();
}

void GraphScene::emitSelection() { Q_EMIT selectedRefsChanged(selectedRefs()); }

QRectF GraphScene::contentRect() const {
  QRectF rect;
  for (BoxItem* box : boxes_) rect |= box->sceneBoundingRect();
  for (const auto& [id, frame] : frames_) rect |= frame->sceneBoundingRect();
  for (EdgeItem* edge : edges_) rect |= edge->sceneBoundingRect();
  return rect;
}

QPointF GraphScene::fallbackPosition(int index) const {
  // Items the layout has not placed yet go in a row under the placed ones.
  double bottom = 0;
  double left = 0;
  for (const auto& [id, p] : document_->graph().layout()) {
    bottom = std::max(bottom, p.y);
    left = std::min(left, p.x);
  }
  return QPointF(left + (index % 20) * (kNodeWidth + kSiblingGap),
                 bottom + 2 * kLayerGap + (index / 20) * (kNodeHeight + kSiblingGap));
}

void GraphScene::chooseIndex() {
  // Measured on tok2tok expanded (editor_test): with the BSP index zoomed-in redraws take
  // ~14 ms against ~18 ms with NoIndex, and dragging a box costs no more. On big scenes
  // the index costs more than it saves: an edge's bounding box spans many of its cells,
  // and a full view of tok2tok L=1000 (24k boxes, 70k edges) gathered gigabytes of
  // duplicate entries from them.
  const VisibleGraph& v = document_->visible();
  const auto method = v.items.size() + v.edges.size() > kIndexedItemLimit ? NoIndex : BspTreeIndex;
  if (itemIndexMethod() != method) setItemIndexMethod(method);
}

void GraphScene::indexProducers() {
  const VisibleGraph& v = document_->visible();
  producers_.assign(v.items.size(), {});
  for (const VisibleEdge& e : v.edges)
    if (e.to >= 0 && e.to < static_cast<int>(producers_.size()))
      producers_[static_cast<size_t>(e.to)].push_back(e.fromNode);
  for (auto& producers : producers_) {
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
  }
}

const std::vector<NodeId>& GraphScene::producersOfItem(int itemIndex) const {
  static const std::vector<NodeId> none;
  return itemIndex >= 0 && itemIndex < static_cast<int>(producers_.size())
             ? producers_[static_cast<size_t>(itemIndex)]
             : none;
}

std::vector<GroupPort> GraphScene::portsOfItem(int itemIndex) const {
  const Graph& g = document_->graph();
  const VisibleGraph& v = document_->visible();
  std::vector<GroupPort> ports;
  if (itemIndex < 0 || itemIndex >= static_cast<int>(v.items.size()) ||
      v.items[static_cast<size_t>(itemIndex)].kind != VisibleItem::Kind::Group)
    return ports;
  // Producers with a drawn edge (limitForDrawing may leave some out), each once.
  const std::vector<NodeId>& drawn = producersOfItem(itemIndex);
  std::set<NodeId> placed;
  std::vector<NodeId> members = g.groups()[static_cast<size_t>(v.items[itemIndex].id)].nodes;
  std::sort(members.begin(), members.end());
  for (NodeId m : members) {
    if (!g.contains(m) || v.itemOfNode[static_cast<size_t>(m)] != itemIndex) continue;
    const Node& n = g.node(m);
    for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
      const NodeId p = n.inputs[slot];
      if (p == kNoNode) {
        ports.push_back({kNoNode, {m, static_cast<int>(slot)}});
      } else if (std::binary_search(drawn.begin(), drawn.end(), p) && placed.insert(p).second) {
        ports.push_back({p, {}});
      }
    }
  }
  return ports;
}

BoxItem* GraphScene::makeBox(const VisibleItem& item, int index, int& unplaced) {
  const Graph& g = document_->graph();
  const ItemSize size = itemSize(g, item);
  const QSizeF qsize(size.width, size.height);
  BoxItem* box = nullptr;
  if (item.kind == VisibleItem::Kind::Node)
    box = new NodeItem(g, item.id, qsize);
  else
    box = new GroupItem(g, item.id, qsize, portsOfItem(index));
  const auto pos = document_->position(refOf(item));
  box->setPos(pos ? toPoint(*pos) : fallbackPosition(unplaced++));
  box->setCacheMode(detailCaching_ ? QGraphicsItem::DeviceCoordinateCache : QGraphicsItem::NoCache);
  addItem(box);
  boxByRef_[box->ref()] = box;
  return box;
}

void GraphScene::deleteBox(BoxItem* box) {
  for (EdgeItem* edge : std::vector<EdgeItem*>(box->edges())) deleteEdge(edge);
  boxByRef_.erase(box->ref());
  removeItem(box);
  delete box;
}

void GraphScene::deleteEdge(EdgeItem* edge) {
  std::erase(edges_, edge);
  destroyEdge(edge);
}

void GraphScene::destroyEdge(EdgeItem* edge) {
  edge->source()->detachEdge(edge);
  edge->target()->detachEdge(edge);
  removeItem(edge);
  delete edge;
}

void GraphScene::rebuild(bool keepSelection) {
  const QList<ItemRef> selected = keepSelection ? selectedRefs() : QList<ItemRef>();
  cancelConnection();
  dragStart_.clear();
  building_ = true;
  clear();  // deletes every item
  boxes_.clear();
  boxByRef_.clear();
  edges_.clear();
  frames_.clear();
  framesInnermostFirst_.clear();

  const VisibleGraph& v = document_->visible();
  chooseIndex();
  indexProducers();
  boxes_.reserve(v.items.size());
  int unplaced = 0;
  for (size_t i = 0; i < v.items.size(); ++i)
    boxes_.push_back(makeBox(v.items[i], static_cast<int>(i), unplaced));
  syncFrames();
  syncEdges();
  refreshProblems();
  for (const ItemRef& ref : selected)
    if (BoxItem* box = boxOf(ref)) box->setSelected(true);
  building_ = false;
  emitSelection();
  Q_EMIT rebuilt();
}

std::set<ItemRef> GraphScene::staleBoxes(const DocumentChange& what) const {
  const Graph& g = document_->graph();
  const VisibleGraph& v = document_->visible();
  std::set<ItemRef> stale;
  auto markNode = [&](NodeId id) {
    if (const auto ref = visibleRefOfNode(id)) stale.insert(*ref);
  };
  // Changed nodes, their readers (whose "in -> out" line shows the input width) and the
  // old and new output (its frame and diamond).
  std::set<NodeId> changed(what.nodes.begin(), what.nodes.end());
  for (NodeId id : what.nodes) markNode(id);
  if (!changed.empty()) {
    for (const Node& n : g.nodes()) {
      if (n.removed) continue;
      for (NodeId in : n.inputs) {
        if (changed.count(in)) {
          markNode(n.id);
          break;
        }
      }
    }
  }
  markNode(what.outputBefore);
  markNode(what.outputAfter);
  for (GroupId id : what.groups) stale.insert(ItemRef{ItemRef::Kind::Group, id});
  // Group boxes whose outside producers or open operand slots changed get other ports.
  for (size_t i = 0; i < v.items.size(); ++i) {
    if (v.items[i].kind != VisibleItem::Kind::Group) continue;
    const auto it = boxByRef_.find(refOf(v.items[i]));
    if (it == boxByRef_.end()) continue;
    const auto* box = static_cast<const GroupItem*>(it->second);
    const int index = static_cast<int>(i);
    if (box->ports() != portsOfItem(index)) stale.insert(it->first);
  }
  return stale;
}

void GraphScene::applyChange(const DocumentChange& what) {
  if (what.replaced) {
    rebuild(/*keepSelection=*/false);
    return;
  }
  const Graph& g = document_->graph();
  const VisibleGraph& v = document_->visible();
  const QList<ItemRef> selected = selectedRefs();
  const bool wasBuilding = building_;
  building_ = true;
  if (connection_ && (what.structure || !what.rewired.empty())) cancelConnection();
  chooseIndex();
  indexProducers();

  // Boxes: drop those no longer visible, redraw the stale ones, add the new ones.
  std::set<ItemRef> wanted;
  for (const VisibleItem& item : v.items) wanted.insert(refOf(item));
  const std::set<ItemRef> stale = staleBoxes(what);
  bool itemsChanged = false;
  for (auto it = boxByRef_.begin(); it != boxByRef_.end();) {
    BoxItem* box = it->second;
    ++it;  // deleteBox erases the entry
    const ItemRef ref = box->ref();
    if (!wanted.count(ref)) {
      deleteBox(box);
      itemsChanged = true;
    } else if (stale.count(ref)) {
      // A node box keeps its size: refresh it in place; a group box is drawn anew.
      if (ref.kind == ItemRef::Kind::Node) {
        static_cast<NodeItem*>(box)->refresh(g);
      } else {
        deleteBox(box);
        itemsChanged = true;
      }
    }
  }
  boxes_.clear();
  boxes_.reserve(v.items.size());
  // New boxes without a place join the row under the others, after those already there.
  int unplaced = 0;
  for (const auto& [ref, box] : boxByRef_) unplaced += document_->position(ref) ? 0 : 1;
  for (size_t i = 0; i < v.items.size(); ++i) {
    BoxItem* box = boxOf(refOf(v.items[i]));
    if (box == nullptr) {
      box = makeBox(v.items[i], static_cast<int>(i), unplaced);
      itemsChanged = true;
    }
    boxes_.push_back(box);
  }
  if (itemsChanged || !what.groups.empty()) syncFrames();
  syncEdges();
  syncPositions();
  refreshProblems();
  if (!what.restored.empty()) {
    // An undone deletion: what was deleted (the selection then) is the selection again.
    clearSelection();
    for (const ItemRef& ref : what.restored) {
      const auto shown = ref.kind == ItemRef::Kind::Node ? visibleRefOfNode(ref.id) : ref;
      if (BoxItem* box = shown ? boxOf(*shown) : nullptr) box->setSelected(true);
    }
  } else {
    // The selection keeps what still exists (a deleted box is simply gone from it).
    for (const ItemRef& ref : selected)
      if (BoxItem* box = boxOf(ref); box && !box->isSelected()) box->setSelected(true);
  }
  building_ = wasBuilding;
  if (selectedRefs() != selected) emitSelection();
  Q_EMIT rebuilt();
}

std::map<GroupId, int> GraphScene::shownFrames() const {
  // A group is shown as a frame when it and every ancestor is expanded.
  std::map<GroupId, int> shown;  // group -> depth
  const auto& groups = document_->graph().groups();
  for (const Group& group : groups) {
    bool expanded = group.expanded;
    int depth = 0;
    for (GroupId p = group.parent; expanded && p != kNoGroup; p = groups[p].parent) {
      expanded = groups[p].expanded;
      ++depth;
    }
    if (expanded && !group.removed && !group.nodes.empty()) shown[group.id] = depth;
  }
  return shown;
}

void GraphScene::syncFrames() {
  // Frames come and go with their groups' expansion; the others stay (a frame covers
  // many boxes: re-creating all of them would repaint the whole graph for any edit).
  const std::map<GroupId, int> shown = shownFrames();
  const Graph& g = document_->graph();
  for (auto it = frames_.begin(); it != frames_.end();) {
    if (shown.count(it->first)) {
      ++it;
      continue;
    }
    removeItem(it->second);
    delete it->second;
    it = frames_.erase(it);
  }
  for (const auto& [id, depth] : shown) {
    if (frames_.count(id)) continue;
    auto* frame = new GroupFrameItem(g.groups()[id], depth);
    addItem(frame);
    frames_[id] = frame;
  }
  framesInnermostFirst_.clear();
  for (const auto& [id, frame] : frames_) framesInnermostFirst_.push_back(frame);
  std::stable_sort(
      framesInnermostFirst_.begin(), framesInnermostFirst_.end(),
      [](const GroupFrameItem* a, const GroupFrameItem* b) { return a->depth() > b->depth(); });
  fitFrames(framesInnermostFirst_);
}

void GraphScene::fitFrames(const std::vector<GroupFrameItem*>& frames) {
  // `frames` is innermost first, so an inner frame is fitted before its parent reads it.
  const Graph& g = document_->graph();
  const VisibleGraph& v = document_->visible();
  for (GroupFrameItem* frame : frames) {
    const Group& group = g.groups()[frame->groupId()];
    QRectF members;
    for (NodeId n : group.nodes) {
      if (n < 0 || n >= static_cast<NodeId>(v.itemOfNode.size())) continue;
      const int index = v.itemOfNode[n];
      if (index < 0 || index >= static_cast<int>(boxes_.size())) continue;
      members |= boxes_[index]->mapRectToScene(boxes_[index]->boxRect());
    }
    for (const Group& child : g.groups())
      if (child.parent == group.id)
        if (GroupFrameItem* inner = frameOf(child.id)) members |= inner->frameRect();
    frame->fitAround(members);
  }
}

void GraphScene::boxMoved(BoxItem* box) {
  if (building_ || frames_.empty()) return;
  // Refit the frames of the groups around the box, innermost first.
  const Graph& g = document_->graph();
  GroupId group = kNoGroup;
  if (box->ref().kind == ItemRef::Kind::Node)
    group = g.node(box->ref().id).group;
  else
    group = g.groups()[box->ref().id].parent;
  std::vector<GroupFrameItem*> chain;
  for (; group != kNoGroup; group = g.groups()[group].parent)
    if (GroupFrameItem* frame = frameOf(group)) chain.push_back(frame);
  fitFrames(chain);
}

void GraphScene::syncEdges() {
  // One edge per visible edge; an existing edge is kept when it joins the same boxes at
  // the same port, so an edit re-creates only the edges it touched.
  const VisibleGraph& v = document_->visible();
  std::map<std::pair<NodeId, int>, EdgeItem*> existing;  // (reader, slot) -> edge
  for (EdgeItem* edge : edges_) existing[{edge->readerNode(), edge->readerSlot()}] = edge;
  std::vector<EdgeItem*> next;
  next.reserve(v.edges.size());
  for (const VisibleEdge& e : v.edges) {
    if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(boxes_.size()) ||
        e.to >= static_cast<int>(boxes_.size()))
      continue;
    BoxItem* source = boxes_[e.from];
    BoxItem* target = boxes_[e.to];
    int port = e.slot;
    if (target->type() == GroupItem::Type)
      port = static_cast<GroupItem*>(target)->portOfProducer(e.fromNode);
    const auto it = existing.find({e.toNode, e.slot});
    if (it != existing.end()) {
      EdgeItem* edge = it->second;
      existing.erase(it);
      if (edge->source() == source && edge->target() == target && edge->targetPort() == port) {
        edge->adjust();
        next.push_back(edge);
        continue;
      }
      destroyEdge(edge);
    }
    auto* edge = new EdgeItem(source, target, port, e.toNode, e.slot);
    addItem(edge);
    source->attachEdge(edge);
    target->attachEdge(edge);
    next.push_back(edge);
  }
  for (const auto& [key, edge] : existing) destroyEdge(edge);
  edges_ = std::move(next);
}

void GraphScene::refreshProblems() {
  std::vector<QStringList> messages(boxes_.size());
  const VisibleGraph& v = document_->visible();
  for (const Problem& p : document_->problems()) {
    if (p.node < 0 || p.node >= static_cast<NodeId>(v.itemOfNode.size())) continue;
    const int index = v.itemOfNode[p.node];
    if (index < 0 || index >= static_cast<int>(boxes_.size())) continue;
    messages[index].append(QString::fromStdString(p.message));
  }
  for (size_t i = 0; i < boxes_.size(); ++i) boxes_[i]->setProblems(messages[i]);
}

void GraphScene::syncPositions() {
  const VisibleGraph& v = document_->visible();
  const bool wasBuilding = building_;
  building_ = true;  // frames are refitted once below, not per box
  for (size_t i = 0; i < boxes_.size() && i < v.items.size(); ++i) {
    const auto pos = document_->position(refOf(v.items[i]));
    if (pos && boxes_[i]->pos() != toPoint(*pos)) boxes_[i]->setPos(toPoint(*pos));
  }
  building_ = wasBuilding;
  fitFrames(framesInnermostFirst_);
}

void GraphScene::selectGroupMembers(GroupId id) {
  if (!document_->graph().containsGroup(id)) return;
  QList<ItemRef> refs;
  for (NodeId n : document_->graph().groups()[id].nodes)
    if (const auto ref = visibleRefOfNode(n); ref && !refs.contains(*ref)) refs.append(*ref);
  selectRefs(refs);
}

void GraphScene::moveSelectionBy(QPointF delta) {
  for (BoxItem* box : boxes_)
    if (box->isSelected()) box->moveBy(delta.x(), delta.y());
}

void GraphScene::requestGroupExpanded(GroupId id, bool expanded) {
  QTimer::singleShot(0, this, [this, id, expanded] {
    try {
      document_->setGroupExpanded(id, expanded);
    } catch (const Error& e) {
      Q_EMIT statusMessage(QString::fromUtf8(e.what()));
    }
  });
}

// ---- mouse: moving boxes, connecting ports -------------------------------------------

BoxItem* GraphScene::boxNear(QPointF scenePos) const {
  // Ports reach a few units outside the box, so search a small square around the point.
  const QRectF around(scenePos - QPointF(10, 10), QSizeF(20, 20));
  for (QGraphicsItem* item : items(around, Qt::IntersectsItemBoundingRect, Qt::DescendingOrder)) {
    if (!isBox(item)) continue;
    auto* box = static_cast<BoxItem*>(item);
    const QPointF local = box->mapFromScene(scenePos);
    if (box->boxRect().contains(local) || box->inputPortAt(local) >= 0 || box->outputPortAt(local))
      return box;
  }
  return nullptr;
}

bool GraphScene::startConnection(BoxItem* box, QPointF scenePos) {
  const QPointF local = box->mapFromScene(scenePos);
  const Graph& g = document_->graph();
  ConnectionDrag drag;
  if (box->outputPortAt(local)) {
    drag.from = box->outputNode();
    drag.start = box->mapToScene(box->outputPortPos());
    if (!g.contains(drag.from)) return false;
  } else {
    const int port = box->inputPortAt(local);
    if (port < 0) return false;
    if (box->type() != NodeItem::Type) {
      // An open operand port of a collapsed group: the drop names its producer.
      if (const auto open = static_cast<GroupItem*>(box)->openSlotOfPort(port)) {
        drag.fromInput = true;
        drag.to = open->node;
        drag.toSlot = g.node(open->node).op == Op::Concat ? open->slot : 0;
        drag.start = box->mapToScene(box->inputPortPos(port));
      } else {
        Q_EMIT statusMessage(tr("Expand the group to rewire its inputs."));
        return true;
      }
    } else {
      const Node& node = g.node(box->ref().id);
      const bool connected =
          port < static_cast<int>(node.inputs.size()) && g.contains(node.inputs[port]);
      if (!connected) {
        // An open input (or a Concat's "+"): the drop names the producer.
        drag.fromInput = true;
        drag.to = node.id;
        drag.toSlot = node.op == Op::Concat && port >= static_cast<int>(node.inputs.size())
                          ? -1
                          : (node.op == Op::Concat ? port : 0);
        drag.start = box->mapToScene(box->inputPortPos(port));
      } else {
        drag.from = node.inputs[port];
        drag.rewiredNode = node.id;
        drag.rewiredSlot = port;
        for (EdgeItem* edge : box->edges()) {
          if (edge->target() == box && edge->targetPort() == port) {
            drag.hiddenEdge = edge;
            edge->hide();  // the edge follows the cursor until it is dropped
            drag.start = edge->source()->mapToScene(edge->source()->outputPortPos());
          }
        }
        if (!drag.hiddenEdge) return false;
      }
    }
  }
  drag.line = new QGraphicsPathItem(drag.fromInput ? edgeCurve(scenePos, drag.start)
                                                   : edgeCurve(drag.start, scenePos));
  QPen pen(selectionColor(), 2, Qt::DashLine);
  pen.setCosmetic(true);
  drag.line->setPen(pen);
  drag.line->setZValue(100);
  addItem(drag.line);
  connection_ = drag;
  return true;
}

void GraphScene::cancelConnection() {
  if (!connection_) return;
  if (connection_->hiddenEdge) connection_->hiddenEdge->show();
  delete connection_->line;
  connection_.reset();
}

void GraphScene::refuse(const QString& reason, QPoint screenPos) {
  Q_EMIT statusMessage(tr("Cannot connect: %1").arg(reason));
  QToolTip::showText(screenPos,
                     QStringLiteral("<span style='color:%1'><b>Cannot connect:</b> %2</span>")
                         .arg(errorColor().name(), reason.toHtmlEscaped()),
                     nullptr, QRect(), 4000);
}

GraphScene::DropTarget GraphScene::dropTargetAt(const ConnectionDrag& drag,
                                                QPointF scenePos) const {
  DropTarget target;
  target.box = boxNear(scenePos);
  if (!target.box) return target;
  if (drag.fromInput) {
    // Any box gives its value: a node box its node, a group box its output node.
    target.from = target.box->outputNode();
    target.to = drag.to;
    target.slot = drag.toSlot;
    if (!document_->graph().contains(target.from)) {
      target.refusal = tr("this group has no output node to connect");
      return target;
    }
    if (const auto refusal = document_->connectionRefusal(target.from, target.to, target.slot))
      target.refusal = QString::fromStdString(*refusal);
    return target;
  }
  if (target.box->type() != NodeItem::Type) {
    // A collapsed group takes a connection on one of its open operand ports.
    const int port = target.box->inputPortAt(target.box->mapFromScene(scenePos));
    const auto open = static_cast<GroupItem*>(target.box)->openSlotOfPort(port);
    if (!open) {
      target.refusal =
          tr("drop on one of the group's open input ports, or expand the group (double-click) to "
             "connect to a member");
      return target;
    }
    target.from = drag.from;
    target.to = open->node;
    target.slot = document_->graph().node(open->node).op == Op::Concat ? open->slot : 0;
    if (const auto refusal = document_->connectionRefusal(target.from, target.to, target.slot))
      target.refusal = QString::fromStdString(*refusal);
    return target;
  }
  target.from = drag.from;
  target.to = target.box->ref().id;
  const int port = target.box->inputPortAt(target.box->mapFromScene(scenePos));
  // A port picks the slot; the body or Concat's "+" port means "the next free slot".
  target.slot = port >= 0 && port < target.box->inputPortCount() ? port : -1;
  if (drag.rewiredNode == target.to && drag.rewiredSlot == target.slot) return target;  // put back
  if (const auto refusal = document_->connectionRefusal(target.from, target.to, target.slot))
    target.refusal = QString::fromStdString(*refusal);
  return target;
}

void GraphScene::updateConnectionLine(QPointF scenePos) {
  ConnectionDrag& drag = *connection_;
  drag.line->setPath(drag.fromInput ? edgeCurve(scenePos, drag.start)
                                    : edgeCurve(drag.start, scenePos));
  // Green over a target that takes the connection, red over one that refuses it.
  const DropTarget target = dropTargetAt(drag, scenePos);
  const ItemRef ref = target.box ? target.box->ref() : ItemRef{ItemRef::Kind::Node, kNoNode};
  if (ref == drag.hoverTarget && target.slot == drag.hoverSlot) return;
  drag.hoverTarget = ref;
  drag.hoverSlot = target.slot;
  QPen pen = drag.line->pen();
  pen.setColor(!target.box      ? selectionColor()
               : target.refusal ? errorColor()
                                : QColor(0x22, 0x88, 0x33));
  drag.line->setPen(pen);
  // The status bar says what a release would do here; a refusal never outlives its target.
  const bool putBack = drag.rewiredNode == target.to && drag.rewiredSlot == target.slot;
  if (target.refusal)
    Q_EMIT statusMessage(tr("Cannot connect here: %1").arg(*target.refusal));
  else if (target.box && !putBack)
    Q_EMIT statusMessage(tr("Release to connect #%1 to #%2.").arg(target.from).arg(target.to));
  else
    Q_EMIT statusMessage(QString());
}

void GraphScene::finishConnection(QPointF scenePos, QPoint screenPos) {
  const ConnectionDrag drag = *connection_;
  delete drag.line;
  connection_.reset();
  if (drag.hiddenEdge) drag.hiddenEdge->show();

  const DropTarget target = dropTargetAt(drag, scenePos);
  const bool rewiring = drag.rewiredNode != kNoNode;
  if (!target.box) {
    // An existing edge dropped on empty space: it is removed.
    if (rewiring) {
      document_->disconnect(drag.rewiredNode, drag.rewiredSlot);
      Q_EMIT statusMessage(
          tr("Disconnected input %1 of #%2.").arg(drag.rewiredSlot).arg(drag.rewiredNode));
    }
    return;
  }
  if (target.refusal) {
    refuse(*target.refusal, screenPos);
    return;
  }
  if (rewiring && target.to == drag.rewiredNode && target.slot == drag.rewiredSlot)
    return;  // put back
  try {
    if (rewiring)
      document_->rewire(drag.rewiredNode, drag.rewiredSlot, target.from, target.to, target.slot);
    else
      document_->connect(target.from, target.to, target.slot);
    Q_EMIT statusMessage(tr("Connected #%1 to #%2.").arg(target.from).arg(target.to));
  } catch (const Error& e) {
    refuse(QString::fromUtf8(e.what()), screenPos);
  }
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (connection_) {
    event->accept();
    return;
  }
  if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::AltModifier)) {
    if (BoxItem* box = boxNear(event->scenePos())) {
      const QPointF local = box->mapFromScene(event->scenePos());
      if ((box->outputPortAt(local) || box->inputPortAt(local) >= 0) &&
          startConnection(box, event->scenePos())) {
        event->accept();
        return;
      }
    }
  }
  QGraphicsScene::mousePressEvent(event);
  dragStart_.clear();
  QGraphicsItem* grabber = mouseGrabberItem();
  if (event->button() == Qt::LeftButton && grabber &&
      (isBox(grabber) || grabber->type() == GroupFrameItem::Type)) {
    for (BoxItem* box : boxes_)
      if (box->isSelected()) dragStart_.emplace_back(box->ref(), box->pos());
  }
}

void GraphScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (connection_) {
    updateConnectionLine(event->scenePos());
    event->accept();
    return;
  }
  QGraphicsScene::mouseMoveEvent(event);
}

void GraphScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (connection_) {
    if (event->button() == Qt::LeftButton) finishConnection(event->scenePos(), event->screenPos());
    event->accept();
    return;
  }
  QGraphicsScene::mouseReleaseEvent(event);
  if (event->button() == Qt::LeftButton) commitDrag();
}

void GraphScene::commitDrag() {
  // The drag itself only moved items; the document learns the result once, as one undo step.
  std::vector<std::pair<ItemRef, NodePosition>> moves;
  for (const auto& [ref, start] : dragStart_) {
    BoxItem* box = boxOf(ref);
    if (box && box->pos() != start)
      moves.emplace_back(ref, NodePosition{box->pos().x(), box->pos().y()});
  }
  dragStart_.clear();
  if (!moves.empty()) document_->moveItems(moves);
}

void GraphScene::keyPressEvent(QKeyEvent* event) {
  if (connection_ && event->key() == Qt::Key_Escape) {
    cancelConnection();
    event->accept();
    return;
  }
  QGraphicsScene::keyPressEvent(event);
}

}  // namespace lsrl::studio
