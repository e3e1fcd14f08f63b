// The stepper's read-only picture of the program: the editor's scene (same boxes, same
// layout) with each box tinted by its node's value at the current step (blue positive,
// red negative, white zero; the strength grows with log10 of the largest magnitude) and a
// tooltip with the exact value. A collapsed group shows its output node's value. No edits:
// the view is not interactive; it zooms and pans as every graph does (ZoomPanView), and
// opens readable — framed on a node at a zoom where the box titles read — not fitted.
#pragma once

#include "app/studio/document/document.h"
#include "app/studio/editor/zoom_pan_view.h"
#include "app/studio/stepper/stepper_run.h"

namespace lsrl::studio {

class GraphScene;

class ValueGraphView : public ZoomPanView {
  Q_OBJECT

 public:
  explicit ValueGraphView(Document* doc, QWidget* parent = nullptr);

  // Tints every box with `run`'s values after token t (run null: no tint). `marked`
  // gets a thick outline (the first divergence).
  void showValues(const StepperRun* run, int t, NodeId marked = kNoNode);
  // Centres the box showing program node `id` (its collapsed group's if hidden) with its
  // neighbourhood, at a zoom where the box titles read (kReadableZoom) or closer.
  void centerOnNode(NodeId id);
  // The editor's box titles are 13 px (9.75 pt at 96 dpi): at 1:1 they read at >= 9 pt.
  static constexpr double kReadableZoom = 1.0;
  QRectF contentRect() const override;
  GraphScene* graphScene() const { return scene_; }
  // The colour a value gets (its largest-magnitude entry decides).
  static QColor colorFor(const std::vector<double>& value);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void applyTint();

  GraphScene* scene_;
  const StepperRun* run_ = nullptr;
  int step_ = 0;
  NodeId marked_ = kNoNode;
  NodeId pendingNode_ = kNoNode;  // to centre on once shown
};

}  // namespace lsrl::studio
