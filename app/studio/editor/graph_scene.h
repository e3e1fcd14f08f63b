// The node editor's scene: the items of a Document's visible graph (NodeItem and
// GroupItem boxes, EdgeItems, a GroupFrameItem per expanded group), kept in step with
// the document's changes item by item: an edit re-creates or refreshes only the boxes
// and edges it touched. It also turns mouse gestures into document edits: a drag of
// boxes becomes one moveItems() at release; a drag from an output port to a box or an
// input port, or from an open input port to a box or an output port, becomes connect()
// (or a refusal with its reason); a drag out of a connected input port rewires or
// disconnects it.
#pragma once

#include <QGraphicsScene>
#include <QList>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "app/studio/document/document.h"
#include "app/studio/editor/group_item.h"

class QGraphicsPathItem;

namespace lsrl::studio {

class BoxItem;
class EdgeItem;
class GroupFrameItem;

// Above this many boxes and edges the scene keeps no spatial index (see chooseIndex).
constexpr size_t kIndexedItemLimit = 20000;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(Document* document, QObject* parent = nullptr);
  ~GraphScene() override;
  Document* document() const { return document_; }

  // The box drawing `ref`, or nullptr if it is not visible.
  BoxItem* boxOf(ItemRef ref) const;
  // The box showing node `id`: its own, or the collapsed group box that hides it.
  BoxItem* boxOfNode(NodeId id) const;
  // The visible item showing node `id`: the node itself or the collapsed group hiding it.
  std::optional<ItemRef> visibleRefOfNode(NodeId id) const;
  // Boxes in the order of document()->visible().items, edges in the order of its edges.
  const std::vector<BoxItem*>& boxes() const { return boxes_; }
  const std::vector<EdgeItem*>& edgeItems() const { return edges_; }
  const std::vector<GroupFrameItem*>& framesInnermostFirst() const { return framesInnermostFirst_; }
  GroupFrameItem* frameOf(GroupId id) const;

  QList<ItemRef> selectedRefs() const;
  void selectRefs(const QList<ItemRef>& refs);
  // Boxes keep a pixmap of themselves per view (Qt's DeviceCoordinateCache): with text
  // (zoomed in) that makes pans and drags several times cheaper; zoomed out, where a box
  // is a plain rectangle, the pixmaps cost more than they save (editor_test measures).
  void setDetailCaching(bool on);
  bool detailCaching() const { return detailCaching_; }
  // Bounding rect of everything drawn (boxes, frames, edges).
  QRectF contentRect() const;

  // For the items: a box moved (edges follow by themselves; frames are refitted here).
  void boxMoved(BoxItem* box);
  // For the frames: select exactly the boxes inside expanded group `id`; move the
  // selected boxes (a drag, committed to the document at release).
  void selectGroupMembers(GroupId id);
  void moveSelectionBy(QPointF delta);
  // For the items: collapse or expand a group after the current mouse event returns
  // (the edit rebuilds the scene, which deletes the item that asked).
  void requestGroupExpanded(GroupId id, bool expanded);

 public Q_SLOTS:
  // Re-creates every item from document()->visible(); keeps the selection unless told
  // otherwise (another document: its ids mean other nodes).
  void rebuild(bool keepSelection = true);
  // Brings the items up to the document after `what` (only those it touched).
  void applyChange(const DocumentChange& what);

 Q_SIGNALS:
  // A one-line message for the status bar (refused connections, ...).
  void statusMessage(const QString& message);
  // The selection as document items; emitted once per user change and after rebuilds.
  void selectedRefsChanged(const QList<ItemRef>& refs);
  // Items were created, re-created or removed (the content rect may have changed).
  void rebuilt();

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  // A connection being dragged. From an output port (or out of a connected input port,
  // which rewires that edge) the producer is known and the drop picks the reader; from
  // an open input port the reader is known and the drop picks the producer.
  struct ConnectionDrag {
    bool fromInput = false;        // started at an open input port of `to`
    NodeId from = kNoNode;         // the producer (unless fromInput)
    NodeId to = kNoNode;           // fromInput: the reader
    int toSlot = -1;               // fromInput: its slot (-1: a Concat's new slot)
    QPointF start;                 // scene position of the port the drag started at
    NodeId rewiredNode = kNoNode;  // set when dragging an existing edge out of an input
    int rewiredSlot = -1;
    EdgeItem* hiddenEdge = nullptr;
    QGraphicsPathItem* line = nullptr;
    // The drop target under the cursor last time, and whether it would be refused.
    ItemRef hoverTarget{ItemRef::Kind::Node, kNoNode};
    int hoverSlot = -2;
  };
  struct DropTarget {
    BoxItem* box = nullptr;
    NodeId from = kNoNode;           // the producer the drop connects
    NodeId to = kNoNode;             // the reader
    int slot = -1;                   // -1: the next free slot
    std::optional<QString> refusal;  // why dropping here is refused
  };
  DropTarget dropTargetAt(const ConnectionDrag& drag, QPointF scenePos) const;
  void updateConnectionLine(QPointF scenePos);

  // A box for visible item `index`; one without a place takes slot `unplaced` (counted up)
  // of the row under the placed ones.
  BoxItem* makeBox(const VisibleItem& item, int index, int& unplaced);
  void deleteBox(BoxItem* box);
  // Boxes of `refs` that must be drawn anew (their text, ports or size changed).
  std::set<ItemRef> staleBoxes(const DocumentChange& what) const;
  // Creates, deletes and re-creates edges so that they match the visible edges.
  void syncEdges();
  void deleteEdge(EdgeItem* edge);   // also drops it from edges_
  void destroyEdge(EdgeItem* edge);  // detaches and deletes it (edges_ untouched)
  // The groups drawn as frames now, with their nesting depth.
  std::map<GroupId, int> shownFrames() const;
  // Adds and removes frames to match shownFrames() and refits them all.
  void syncFrames();
  void refreshProblems();
  void syncPositions();
  void fitFrames(const std::vector<GroupFrameItem*>& frames);
  QPointF fallbackPosition(int index) const;
  // The scene's item index: Qt's BSP tree up to kIndexedItemLimit boxes and edges.
  void chooseIndex();
  // The nodes outside each visible item that feed it (sorted), by item index: one pass
  // over the edges per rebuild or change, not one per group box.
  void indexProducers();
  const std::vector<NodeId>& producersOfItem(int itemIndex) const;
  // The input ports of a group box (GroupItem): its members' input slots in order, each
  // producer outside it once, at its first slot, and each unconnected slot.
  std::vector<GroupPort> portsOfItem(int itemIndex) const;
  // The topmost box near `scenePos`, counting the port areas around its edges.
  BoxItem* boxNear(QPointF scenePos) const;

  bool startConnection(BoxItem* box, QPointF scenePos);
  void finishConnection(QPointF scenePos, QPoint screenPos);
  void cancelConnection();
  void refuse(const QString& reason, QPoint screenPos);
  void commitDrag();
  void emitSelection();

  Document* document_;
  std::vector<BoxItem*> boxes_;  // indexed like document_->visible().items
  std::map<ItemRef, BoxItem*> boxByRef_;
  std::vector<EdgeItem*> edges_;                // indexed like document_->visible().edges
  std::vector<std::vector<NodeId>> producers_;  // see indexProducers()
  std::map<GroupId, GroupFrameItem*> frames_;
  std::vector<GroupFrameItem*> framesInnermostFirst_;
  std::optional<ConnectionDrag> connection_;
  std::vector<std::pair<ItemRef, QPointF>> dragStart_;
  bool building_ = false;
  bool detailCaching_ = false;
};

}  // namespace lsrl::studio
