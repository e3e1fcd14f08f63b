// The stepper's read-only picture of the program: the editor's scene (same boxes, same
// layout) with each box tinted by its node's value at the current step (blue positive,
// red negative, white zero; the strength grows with log10 of the largest magnitude) and a
// tooltip with the exact value. A collapsed group shows its output node's value. No edits:
// the view is not interactive; wheel zooms, left-drag pans.
#pragma once

#include <QGraphicsView>

#include "app/studio/document/document.h"
#include "app/studio/stepper/stepper_run.h"

namespace lsrl::studio {

class GraphScene;

class ValueGraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit ValueGraphView(Document* doc, QWidget* parent = nullptr);

  // Tints every box with `run`'s values after token t (run null: no tint). `marked`
  // gets a thick outline (the first divergence).
  void showValues(const StepperRun* run, int t, NodeId marked = kNoNode);
  void fitAll();
  // Zooms in on the box showing program node `id` (its collapsed group if hidden).
  void centerOnNode(NodeId id);
  GraphScene* graphScene() const { return scene_; }
  // The colour a value gets (its largest-magnitude entry decides).
  static QColor colorFor(const std::vector<double>& value);

 protected:
  void wheelEvent(QWheelEvent* event) override;

 private:
  void applyTint();

  GraphScene* scene_;
  const StepperRun* run_ = nullptr;
  int step_ = 0;
  NodeId marked_ = kNoNode;
};

}  // namespace lsrl::studio
