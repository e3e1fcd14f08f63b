#include "app/studio/player/player_graph_view.h"

#include <algorithm>

#include "app/studio/player/player_scene.h"

namespace lsrl::studio {

namespace {
constexpr double kReadablePointSize = 9;
}  // namespace

PlayerGraphView::PlayerGraphView(PlayerScene* scene, QWidget* parent)
    : ZoomPanView(parent), scene_(scene) {
  setScene(scene);
  setRenderHint(QPainter::Antialiasing);
  setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
  // A short path fitted to the window would be blown up to giant boxes.
  setFitZoomLimit(kFollowZoom);
}

double PlayerGraphView::readableZoom() {
  return kReadablePointSize / PlayerNodeItem::kLabelPointSize;
}

double PlayerGraphView::followZoom() const {
  return zoom() >= readableZoom() ? zoom() : kFollowZoom;
}

QRectF PlayerGraphView::contentRect() const { return scene_->nodesBounds(); }

void PlayerGraphView::follow(const StepFocus& focus) {
  const QSizeF size = viewport()->size();
  // The most a readable zoom can show (the region, else the rewritten nodes, else the
  // followed box), zoomed out to it only as far as needed.
  const QRectF part = framedPart(focus, size, readableZoom());
  const double fit = std::min(size.width() / part.width(), size.height() / part.height());
  const double z = std::clamp(fit, readableZoom(), followZoom());
  // Already on screen at this zoom: leave the view be.
  if (z == zoom() && visibleSceneRect().contains(part)) {
    updateSceneRect();
    return;
  }
  showAt(framedPlane(focus, size, z).center(), z);
}

}  // namespace lsrl::studio
