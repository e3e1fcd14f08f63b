// Scoring a seed model over many samples of a scored task (scored_tasks.h): what
// `lsrl model eval` prints and training's held-out score matches. Samples seed, seed + 1,
// … are scored on `threads` threads; the sum does not depend on the thread count.
//
//   Score s = evaluateSeedModel(model, "selective_copy", /*seed=*/0, /*samples=*/1000);
//   s.accuracy();   // fraction of target tokens right
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/models/scored_tasks.h"

namespace lsrl::models {

// How a sample is run: the model's float64 forward by default (the CLI passes its Vulkan
// backend instead). Called from several threads at once when threads > 1.
using SeedModelRunner = std::function<Sequence(const Sequence&)>;

// Throws lsrl::Error for samples < 1, an unscored task, or what running a sample throws.
// threads ≤ 0: the hardware's thread count.
Score evaluateSeedModel(const SeedModel& model, const std::string& task, uint64_t seed, int samples,
                        int threads = 0, const SeedModelRunner& run = nullptr);

}  // namespace lsrl::models
