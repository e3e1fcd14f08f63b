// The seed models' tasks with classes to get right, in one place for training (the Python
// binding, app/python/lsrl/torch), `lsrl model eval` and the explorer's accuracy: each
// sample is the model's input rows plus one target class per token (−1: nothing to score).
// A token is right when the argmax of its output row (first on ties) is its target; its
// loss is the cross-entropy of the softmax of its row at the target (natural log).
//
//   mingru, minlstm   selective_copy (the data tokens at the markers), hold
//   gateloop          memory_horizon (every position, classes 0..modulus−1)
//   lattice           assoc_recall (the value at each query; lattice.h recallParams;
//                     ages: tokens since the pair's write); with input "tokens" (the
//                     token model, read from its config) mqar (the latest value's token at
//                     each query's key; mqar.h; ages: tokens between that value and the
//                     key) and char_lm (the next character at every position; char_text.h)
//   looped            sudoku (the digit at each blank cell), lcs and edit_distance (the
//                     answer at the last token)
//
//   ScoredSample s = scoredSample(model, "selective_copy", 7);
//   Score score = scoreOutputs(model.run(s.input), s.targets);   // score.accuracy()
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {

struct ScoredSample {
  Sequence input;
  std::vector<int> targets;  // per token; −1 where there is nothing to score
  // Per token, for recall tasks: how far back the answer to its target was given (in
  // tokens, ≥ 1; each task's header says from where), −1 where none. Empty: the task has
  // no ages. Scores are broken down by it (Score::byAge).
  std::vector<int> ages;
};

// The age bins accuracy is broken down by: 1–8, 9–16, 17–32, 33–64, 65–128, 129–256, >256.
inline constexpr int kAgeBins = 7;
int ageBin(int age);              // −1 for an age below 1
const char* ageBinName(int bin);  // "1-8", "9-16", …, ">256"

// A sum of non-negative losses that does not depend on the order of its terms (so a
// held-out loss is the same on any number of threads): each term is rounded to a multiple
// of 2^−32 and added exactly in 128 bits. A term that is not finite, or 2^31 or more,
// makes the sum not finite.
class LossSum {
 public:
  void add(double loss);
  LossSum& operator+=(const LossSum& o);
  bool finite() const { return finite_; }
  double value() const;  // NaN when not finite

 private:
  uint64_t high_ = 0, low_ = 0;
  bool finite_ = true;
};

struct TargetCount {
  int64_t right = 0;
  int64_t total = 0;
};

struct Score {
  int64_t right = 0;
  int64_t total = 0;  // target tokens
  LossSum loss;       // cross-entropy summed over the target tokens
  // Target tokens with an age, per ageBin (all zero for a task without ages).
  std::array<TargetCount, kAgeBins> byAge{};

  double accuracy() const { return total == 0 ? 0.0 : static_cast<double>(right) / total; }
  // Mean cross-entropy per target token (NaN when a loss was not finite or nothing scored).
  double meanLoss() const;
  bool hasAges() const;
  Score& operator+=(const Score& o);
};

// The tasks of `model` that scoredSample knows (those of model.tasks() with targets).
std::vector<std::string> scoredTasks(const SeedModel& model);
// One sample, deterministic per seed. Throws lsrl::Error for a task without class targets
// (naming the model's scored tasks).
ScoredSample scoredSample(const SeedModel& model, const std::string& task, uint64_t seed);
// Argmax of each scored token's row against its target (a NaN row is wrong), its loss, and
// with `ages` (one per token, or empty) the counts per age bin. Throws lsrl::Error when the
// lengths differ or a target is outside the row.
Score scoreOutputs(const Sequence& outputs, const std::vector<int>& targets,
                   const std::vector<int>& ages = {});
// Per token: 1 right, 0 wrong, −1 not scored (the explorer's marks).
std::vector<int> tokenMarks(const Sequence& outputs, const std::vector<int>& targets);

}  // namespace lsrl::seed_models
