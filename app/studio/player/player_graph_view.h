// The debranching player's view of its graph: the shared zoom and pan (ZoomPanView), Fit
// showing the graph of the step, and following the rewrite — the step's branch node
// framed with its neighbours at a zoom where the box labels read (>= 9 pt on screen).
#pragma once

#include "app/studio/editor/zoom_pan_view.h"
#include "app/studio/player/step_focus.h"

namespace lsrl::studio {

class PlayerScene;

class PlayerGraphView : public ZoomPanView {
  Q_OBJECT

 public:
  explicit PlayerGraphView(PlayerScene* scene, QWidget* parent = nullptr);

  // The smallest zoom at which the box labels are 9 pt on screen.
  static double readableZoom();
  // The zoom following starts from when the view is zoomed out below readable.
  static constexpr double kFollowZoom = 1.0;
  // The zoom following uses: the current one while readable, else kFollowZoom.
  double followZoom() const;
  // Frames `focus`: at followZoom, zoomed out (never below readable) until its region,
  // else its rewritten nodes, fit; scrolls only when that part is not on screen already,
  // so that a playback that stays in one place does not shake.
  void follow(const StepFocus& focus);

  // The boxes of the graph shown.
  QRectF contentRect() const override;

 private:
  PlayerScene* scene_;
};

}  // namespace lsrl::studio
