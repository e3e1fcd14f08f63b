// The debranching player's graph: a lightweight scene of the compile's graph at one
// step, keyed by IR node id, so that moving to another step only adds, removes or
// re-wires the items the steps in between touched. New items can slide out of the
// branch node and fade in, removed ones fade out (~200 ms), when the player plays.
#pragma once

#include <QFont>
#include <QGraphicsObject>
#include <QGraphicsScene>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "app/studio/player/step_replay.h"

class QGraphicsPathItem;
class QVariantAnimation;

namespace lsrl::studio {

class PlayerNodeItem;

class PlayerScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit PlayerScene(QObject* parent = nullptr);
  ~PlayerScene() override;

  // Drops every item and draws the cursor's graph (nothing when `cursor` is null).
  void rebuild(const StepCursor* cursor);
  // Brings the items of `touched` ids up to the cursor's graph. `animate`: new nodes
  // slide from `origin` and fade in, removed ones fade out.
  void sync(const StepCursor& cursor, const std::vector<NodeId>& touched, bool animate,
            NodePosition origin);
  // The branch node (thick orange frame), the nodes the step added (green frame) and
  // the output (its usual red frame).
  void setHighlight(NodeId branch, const std::vector<NodeId>& added, NodeId output);
  // The node the inspector shows (a selection ring around its box, kept while it lives
  // through later steps); kNoNode: none.
  void setInspected(NodeId id);
  NodeId inspected() const { return inspected_; }

  PlayerNodeItem* nodeItem(NodeId id) const;
  bool isBranchHighlighted(NodeId id) const;
  size_t nodeItemCount() const { return nodes_.size(); }
  // The boxes of the graph shown (at their final places), or an empty rect.
  QRectF nodesBounds() const;
  // Ends a running animation at its final state.
  void finishAnimation();
  // Where node `id` is drawn (once any animation ends): its place from the last
  // moveNodesTo (or, for a node added after it, among the boxes it placed), else the
  // replay's.
  NodePosition positionOf(NodeId id) const;
  // Moves the boxes of `to` to their new places (sliding over ~300 ms when `animate`,
  // edges following); they keep these places at later steps. Boxes drawn but missing
  // from `to` (a layout of an earlier step) move along with their first input in `to`.
  void moveNodesTo(const std::map<NodeId, NodePosition>& to, bool animate);

 Q_SIGNALS:
  void nodeClicked(NodeId id);

 private:
  void addNode(const StepCursor& cursor, NodeId id);
  // After a layout: places a new node among the boxes drawn (a place in `freed`, taken
  // from its front, else right of its inputs), off any box drawn there.
  void placeAfterLayout(const StepCursor& cursor, NodeId id, std::vector<NodePosition>& freed);
  void removeNode(NodeId id, bool animate);
  void rebuildEdges(const StepCursor& cursor, NodeId reader);

  void rebuildAllEdges();

  const ReplayData* data_ = nullptr;
  const StepCursor* cursor_ = nullptr;  // the graph drawn, for re-routing edges
  // Places set by moveNodesTo (a layout of a step), overriding the replay's.
  std::unordered_map<NodeId, NodePosition> placed_;
  std::unordered_map<NodeId, PlayerNodeItem*> nodes_;
  std::unordered_map<NodeId, QGraphicsPathItem*> edges_;  // per reader: all its inputs
  std::vector<NodeId> highlighted_;
  NodeId branch_ = kNoNode;
  NodeId inspected_ = kNoNode;
  // The running animation and what it moves.
  QVariantAnimation* animation_ = nullptr;
  struct Appearing {
    PlayerNodeItem* item;
    QPointF from;
    QPointF to;
  };
  std::vector<Appearing> appearing_;
  std::vector<Appearing> moving_;          // laid-out boxes sliding to their new places
  std::vector<QGraphicsItem*> fading_;     // edges fading in
  std::vector<QGraphicsItem*> vanishing_;  // removed, deleted when the animation ends
};

// One node box: op colour, "#id Op width" and the name.
class PlayerNodeItem : public QGraphicsObject {
  Q_OBJECT

 public:
  // Both lines of a box are drawn in this font, whose point size is fixed (not the
  // desktop's) so that the zoom at which they read is known (PlayerGraphView).
  static constexpr double kLabelPointSize = 10;
  static const QFont& labelFont();

  PlayerNodeItem(NodeId id, const ReplayNodeInfo& info);
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  NodeId nodeId() const { return id_; }
  enum class Mark { None, Branch, Added };
  void setMark(Mark mark);
  Mark mark() const { return mark_; }
  void setOutput(bool output);
  // Shown in the inspector: ringed in the selection colour.
  void setInspected(bool inspected);
  bool isInspected() const { return inspected_; }

 Q_SIGNALS:
  void clicked(NodeId id);

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  NodeId id_;
  QColor fill_;
  QString title_;
  QString name_;
  Mark mark_ = Mark::None;
  bool output_ = false;
  bool inspected_ = false;
};

}  // namespace lsrl::studio
