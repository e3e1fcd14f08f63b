// The debranching as an animation: the player's graph at a series of steps, one numbered
// PNG per step ("step_00042.png", numbered by step so gaps show the stride), framed once
// so the frames line up when played as a sequence.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

namespace lsrl::studio {

class DebranchView;

struct FrameRange {
  int first = 0;
  int last = -1;  // -1: the last step
  int every = 1;
};

// A stride that keeps an export of `steps` steps to about `maxFrames` frames.
int frameStride(int steps, int maxFrames = 600);

// Writes the frames into `dir` (created if missing) and returns their paths. `progress`
// (done, total) is called after each frame; returning false stops early. Throws
// lsrl::Error naming the file or folder that cannot be written, or when `view` has no
// compile. The view is left at the last frame written.
QStringList exportDebranchFrames(DebranchView& view, const QString& dir, FrameRange range,
                                 const std::function<bool(int, int)>& progress = {});

}  // namespace lsrl::studio
