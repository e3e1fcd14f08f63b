// The node editor's scene: the items of a Document's visible graph (NodeItem and
// GroupItem boxes, EdgeItems, a GroupFrameItem per expanded group), kept in step with
// the document's signals. It also turns mouse gestures into document edits: a drag of
// boxes becomes one moveItems() at release, a drag between ports becomes connect() (or a
// refusal with its reason), a drag out of a connected input port disconnects it.
#pragma once

#include <QGraphicsScene>
#include <QList>
#include <map>
#include <optional>
#include <vector>

#include "app/studio/document/document.h"

class QGraphicsPathItem;

namespace lsrl::studio {

class BoxItem;
class EdgeItem;
class GroupFrameItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(Document* document, QObject* parent = nullptr);
  ~GraphScene() override;
  Document* document() const { return document_; }

  // The box drawing `ref`, or nullptr if it is not visible.
  BoxItem* boxOf(ItemRef ref) const;
  // The visible item showing node `id`: the node itself or the collapsed group hiding it.
  std::optional<ItemRef> visibleRefOfNode(NodeId id) const;
  const std::vector<BoxItem*>& boxes() const { return boxes_; }
  const std::vector<EdgeItem*>& edgeItems() const { return edges_; }
  GroupFrameItem* frameOf(GroupId id) const;

  QList<ItemRef> selectedRefs() const;
  void selectRefs(const QList<ItemRef>& refs);
  // Boxes keep a pixmap of themselves per view (Qt's DeviceCoordinateCache): with text
  // (zoomed in) that makes pans and drags several times cheaper; zoomed out, where a box
  // is a plain rectangle, the pixmaps cost more than they save (editor_test measures).
  void setDetailCaching(bool on);
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
  // Re-creates every item from document()->visible(); keeps the selection.
  void rebuild();

 Q_SIGNALS:
  // A one-line message for the status bar (refused connections, ...).
  void statusMessage(const QString& message);
  // The selection as document items; emitted once per user change and after rebuilds.
  void selectedRefsChanged(const QList<ItemRef>& refs);
  // Items were re-created (the content rect may have changed).
  void rebuilt();

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct ConnectionDrag {
    NodeId from = kNoNode;
    QPointF start;                 // scene position of the producer's output port
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
    int slot = -1;                   // -1: the next free slot
    std::optional<QString> refusal;  // why dropping here is refused
  };
  DropTarget dropTargetAt(const ConnectionDrag& drag, QPointF scenePos) const;
  void updateConnectionLine(QPointF scenePos);

  void rebuildEdges();
  // Re-reads the nodes `ids` and their readers (all nodes when null).
  void refreshNodes(const std::vector<NodeId>* ids = nullptr);
  void refreshProblems();
  void syncPositions();
  void fitFrames(const std::vector<GroupFrameItem*>& frames);
  void createFrames();
  QPointF fallbackPosition(int index) const;
  std::vector<NodeId> producersOfItem(int itemIndex) const;
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
  std::vector<EdgeItem*> edges_;
  std::map<GroupId, GroupFrameItem*> frames_;
  std::vector<GroupFrameItem*> framesInnermostFirst_;
  std::optional<ConnectionDrag> connection_;
  std::vector<std::pair<ItemRef, QPointF>> dragStart_;
  bool building_ = false;
  bool detailCaching_ = false;
};

}  // namespace lsrl::studio
