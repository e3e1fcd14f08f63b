// Scoring a seed model over many samples of a scored task (scored_tasks.h): what
// `lsrl model eval` prints and training's held-out score matches. Samples seed, seed + 1,
// … are generated in chunks, each run and scored before the next is drawn, so memory stays
// bounded whatever the sample count. The total is a sum of integer counts and an exact
// fixed-point loss sum (LossSum): it does not depend on the thread count or the batch size.
//
//   Score s = evaluateSeedModel(model, "selective_copy", /*seed=*/0, /*samples=*/1000);
//   s.accuracy();   // fraction of target tokens right
//   s.meanLoss();   // cross-entropy per target token; s.byAge: counts per age bin
//   Score b = evaluateSeedModelInBatches(model, "selective_copy", 0, 10000, runBatch, 256);
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/seed_models/scored_tasks.h"

namespace lsrl::seed_models {

// How a sample is run: the model's float64 forward by default. Called from several
// threads at once when threads > 1.
using SeedModelRunner = std::function<Sequence(const Sequence&)>;
// How a batch of samples is run (the CLI's Vulkan backend): one output sequence per input,
// in the inputs' order. Called from the caller's thread only.
using SeedModelBatchRunner = std::function<std::vector<Sequence>(const std::vector<Sequence>&)>;

// Samples per batch runner call by default: enough to fill a device's batch dimension,
// few enough that the inputs and a backend's per-batch buffers stay small (a trained
// minGRU's float64 host arrays are about 0.3 MB per sample).
inline constexpr int kDefaultEvalBatch = 256;

// One sample at a time on `threads` threads (≤ 0: the hardware's thread count). Throws
// lsrl::Error for samples < 1, an unscored task, or what running a sample throws.
Score evaluateSeedModel(const SeedModel& model, const std::string& task, uint64_t seed, int samples,
                        int threads = 0, const SeedModelRunner& run = nullptr);

// `batch` samples per call of `run`: the same samples and the same total as
// evaluateSeedModel. Throws lsrl::Error for samples or batch < 1, an unscored task, a
// runner returning a different number of sequences than it was given, or what it throws.
Score evaluateSeedModelInBatches(const SeedModel& model, const std::string& task, uint64_t seed,
                                 int samples, const SeedModelBatchRunner& run,
                                 int batch = kDefaultEvalBatch);

}  // namespace lsrl::seed_models
