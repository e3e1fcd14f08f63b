// Where the rewrite of the step shown happens, for the player's view to follow and the
// frame export to frame: the step's branch node, or — most steps (folds) replace it —
// the first node it added (else the first node it re-wired), and the region around it:
// those nodes and their direct inputs and readers, at the places the scene draws them.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <optional>

#include "app/studio/player/step_replay.h"

namespace lsrl::studio {

class PlayerScene;

struct StepFocus {
  NodeId node = kNoNode;  // the node followed
  QPointF centre;         // its box's centre
  QRectF core;            // the boxes of the rewritten nodes (the followed one included)
  QRectF region;          // the core and the boxes of its inputs and readers
};

// The focus of the cursor's step. Step 0 follows step 1's branch node (the first rewrite
// to come). nullopt when none of those nodes is in the graph shown.
std::optional<StepFocus> stepFocus(const PlayerScene& scene, const StepCursor& cursor);

// The part of the plane a picture of `size` pixels at `zoom` shows to frame `focus`: the
// region centred when it fits (with a margin), else the core, else the followed node.
QRectF framedPlane(const StepFocus& focus, QSizeF size, double zoom);

// What framing at `zoom` in `size` pixels shows whole: the region or the core (with a
// margin), or the followed node's box when neither fits.
QRectF framedPart(const StepFocus& focus, QSizeF size, double zoom);

}  // namespace lsrl::studio
