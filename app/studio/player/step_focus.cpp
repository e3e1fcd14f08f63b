#include "app/studio/player/step_focus.h"

#include <algorithm>

#include "app/layout/item_size.h"
#include "app/studio/player/player_scene.h"

namespace lsrl::studio {

namespace {

constexpr double kRegionMargin = 40;  // scene units around the region's boxes

QRectF boxAt(const NodePosition& p) {
  return {p.x - kNodeWidth / 2, p.y - kNodeHeight / 2, kNodeWidth, kNodeHeight};
}

}  // namespace

std::optional<StepFocus> stepFocus(const PlayerScene& scene, const StepCursor& cursor) {
  const ReplayData& data = cursor.data();
  if (data.steps.empty()) return std::nullopt;
  const size_t k = cursor.step();
  const compiler::Step& step = data.steps[k > 0 ? k - 1 : 0];
  // The branch node while it lives; most steps (folds) replace it, and then the nodes
  // that took its place, else the survivors the step re-wired. At step 0 the first step
  // has not happened: its branch node alone.
  std::vector<NodeId> rewritten;
  auto add = [&](NodeId id) {
    if (id >= 0 && cursor.alive(id) &&
        std::find(rewritten.begin(), rewritten.end(), id) == rewritten.end())
      rewritten.push_back(id);
  };
  add(step.branch);
  if (k > 0) {
    for (NodeId id : step.nodesAdded) add(id);
    if (rewritten.empty()) {
      for (const auto& [id, inputs] : step.inputsSet) add(id);
    }
  }
  if (rewritten.empty()) return std::nullopt;

  StepFocus focus;
  focus.node = rewritten.front();
  const NodePosition p = scene.positionOf(focus.node);
  focus.centre = QPointF(p.x, p.y);
  auto include = [&](NodeId id) { focus.region |= boxAt(scene.positionOf(id)); };
  for (NodeId id : rewritten) focus.core |= boxAt(scene.positionOf(id));
  focus.region = focus.core;
  for (NodeId id : rewritten) {
    for (NodeId in : cursor.inputs(id))
      if (in >= 0 && cursor.alive(in)) include(in);
  }
  // Readers: one pass over the graph shown (a few hundred nodes, microseconds).
  for (NodeId reader : cursor.aliveIds()) {
    const std::vector<NodeId>& inputs = cursor.inputs(reader);
    const bool reads = std::any_of(inputs.begin(), inputs.end(), [&](NodeId in) {
      return std::find(rewritten.begin(), rewritten.end(), in) != rewritten.end();
    });
    if (reads) include(reader);
  }
  return focus;
}

QRectF framedPart(const StepFocus& focus, QSizeF size, double zoom) {
  const QSizeF plane = size / std::max(zoom, 1e-6);
  auto fits = [&](const QRectF& r) {
    return r.width() <= plane.width() && r.height() <= plane.height();
  };
  auto withMargin = [](const QRectF& r) {
    return r.adjusted(-kRegionMargin, -kRegionMargin, kRegionMargin, kRegionMargin);
  };
  if (fits(withMargin(focus.region))) return withMargin(focus.region);
  if (fits(withMargin(focus.core))) return withMargin(focus.core);
  return boxAt({focus.centre.x(), focus.centre.y()});
}

QRectF framedPlane(const StepFocus& focus, QSizeF size, double zoom) {
  const QSizeF plane = size / std::max(zoom, 1e-6);
  const QPointF centre = framedPart(focus, size, zoom).center();
  return {centre - QPointF(plane.width() / 2, plane.height() / 2), plane};
}

}  // namespace lsrl::studio
