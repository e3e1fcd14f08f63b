// The debranching as an animation: the player's graph at a series of steps, one numbered
// PNG per step ("step_00042.png", numbered by step so gaps show the stride), each framed
// on its step's rewrite as the player's view follows it, all of one size and zoom. Each
// frame is stamped with its step number and the rule applied (a caption across the top,
// and the PNG text keys "Step" and "Rule").
#pragma once

#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace lsrl::studio {

class DebranchView;

struct FrameRange {
  int first = 0;
  int last = -1;  // -1: the last step
  int every = 1;
};

// A stride that keeps an export of `steps` steps to about `maxFrames` frames.
int frameStride(int steps, int maxFrames = 600);

// The steps first, first + every, ... up to `last`, and `last` itself even when the
// stride steps over it (the end of the debranching is the point of the animation).
std::vector<int> frameSteps(int first, int last, int every);

// Writes the frames into `dir` (created if missing) and returns their paths. `progress`
// (done, total) is called after each frame; returning false stops early. Throws
// lsrl::Error naming the file or folder that cannot be written, or when `view` has no
// compile. The view is left at the step it showed before.
QStringList exportDebranchFrames(DebranchView& view, const QString& dir, FrameRange range,
                                 const std::function<bool(int, int)>& progress = {});

}  // namespace lsrl::studio
