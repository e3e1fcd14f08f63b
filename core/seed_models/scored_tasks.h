// The seed models' tasks with classes to get right, in one place for training (the Python
// binding, app/python/lsrl/torch), `lsrl model eval` and the explorer's accuracy: each
// sample is the model's input rows plus one target class per token (−1: nothing to score).
// A token is right when the argmax of its output row (first on ties) is its target.
//
//   mingru, minlstm   selective_copy (the data tokens at the markers), hold
//   gateloop          memory_horizon (every position, classes 0..modulus−1)
//   lattice           assoc_recall (the value at each query; lattice.h recallParams)
//   looped            sudoku (the digit at each blank cell), lcs and edit_distance (the
//                     answer at the last token)
//
//   ScoredSample s = scoredSample(model, "selective_copy", 7);
//   Score score = scoreOutputs(model.run(s.input), s.targets);   // score.accuracy()
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {

struct ScoredSample {
  Sequence input;
  std::vector<int> targets;  // per token; −1 where there is nothing to score
};

struct Score {
  int64_t right = 0;
  int64_t total = 0;  // target tokens
  double accuracy() const { return total == 0 ? 0.0 : static_cast<double>(right) / total; }
  Score& operator+=(const Score& o) {
    right += o.right;
    total += o.total;
    return *this;
  }
};

// The tasks of `model` that scoredSample knows (those of model.tasks() with targets).
std::vector<std::string> scoredTasks(const SeedModel& model);
// One sample, deterministic per seed. Throws lsrl::Error for a task without class targets
// (naming the model's scored tasks).
ScoredSample scoredSample(const SeedModel& model, const std::string& task, uint64_t seed);
// Argmax of each scored token's row against its target (a NaN row is wrong). Throws
// lsrl::Error when the lengths differ or a target is outside the row.
Score scoreOutputs(const Sequence& outputs, const std::vector<int>& targets);
// Per token: 1 right, 0 wrong, −1 not scored (the explorer's marks).
std::vector<int> tokenMarks(const Sequence& outputs, const std::vector<int>& targets);

}  // namespace lsrl::seed_models
