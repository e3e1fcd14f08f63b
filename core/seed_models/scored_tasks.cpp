#include "core/seed_models/scored_tasks.h"

#include <algorithm>
#include <cmath>

#include "core/seed_models/gateloop.h"
#include "core/seed_models/lattice.h"
#include "core/seed_models/looped.h"
#include "core/seed_models/min_rnn_model.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

std::vector<int> latestOnly(const std::vector<double>& targets) {
  std::vector<int> out(targets.size(), -1);
  if (!out.empty()) out.back() = static_cast<int>(targets.back());
  return out;
}

// Sudoku: the solution digit where the cell is blank (its digit channel 0 is set).
std::vector<int> blankCells(const LoopedTaskSample& s) {
  std::vector<int> out(s.targets.size(), -1);
  for (size_t n = 0; n < out.size(); ++n)
    if (s.input[n][0] == 1) out[n] = static_cast<int>(s.targets[n]);
  return out;
}

std::vector<int> targetsOf(const SeedModel& model, const std::string& task, uint64_t seed) {
  if (const auto* m = dynamic_cast<const MinRnnModel*>(&model)) {
    if (task == "selective_copy" || task == "hold") return m->taskTargets(task, seed);
  } else if (const auto* g = dynamic_cast<const GateLoopModel*>(&model)) {
    if (task == "memory_horizon") return memoryHorizonSample(g->settings().task, seed).targets;
  } else if (const auto* l = dynamic_cast<const LatticeModel*>(&model)) {
    if (task == "assoc_recall" && l->recallParams())
      return assocRecallSample(*l->recallParams(), seed).targets;
  } else if (const auto* t = dynamic_cast<const LoopedModel*>(&model)) {
    if (task == "sudoku") return blankCells(t->taskSample(task, seed));
    if (task == "lcs" || task == "edit_distance")
      return latestOnly(t->taskSample(task, seed).targets);
  }
  return {};
}

const std::vector<std::string>& candidateTasks() {
  static const std::vector<std::string> names = {
      "selective_copy", "hold", "memory_horizon", "assoc_recall", "sudoku", "lcs", "edit_distance"};
  return names;
}

int argmax(const Vector& row) {
  int best = -1;
  for (size_t i = 0; i < row.size(); ++i) {
    if (std::isnan(row[i])) return -1;
    if (best < 0 || row[i] > row[static_cast<size_t>(best)]) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

std::vector<std::string> scoredTasks(const SeedModel& model) {
  std::vector<std::string> out;
  const std::vector<std::string> known = model.tasks();
  for (const std::string& task : candidateTasks())
    if (std::find(known.begin(), known.end(), task) != known.end()) out.push_back(task);
  return out;
}

ScoredSample scoredSample(const SeedModel& model, const std::string& task, uint64_t seed) {
  const std::vector<std::string> scored = scoredTasks(model);
  if (std::find(scored.begin(), scored.end(), task) == scored.end()) {
    std::string names;
    for (const std::string& n : scored) names += (names.empty() ? "" : ", ") + n;
    throw Error(model.kind() + ": task \"" + task + "\" has no targets to score (scored tasks" +
                (names.empty() ? std::string(" for this config: none") : ": " + names) + ")");
  }
  ScoredSample s{model.taskInput(task, seed), targetsOf(model, task, seed)};
  requireSize(model.kind() + " task \"" + task + "\" targets", s.input.size(), s.targets.size());
  return s;
}

std::vector<int> tokenMarks(const Sequence& outputs, const std::vector<int>& targets) {
  requireSize("scored outputs (one row per target)", targets.size(), outputs.size());
  std::vector<int> marks(targets.size(), -1);
  for (size_t n = 0; n < targets.size(); ++n) {
    const int target = targets[n];
    if (target < 0) continue;
    if (static_cast<size_t>(target) >= outputs[n].size())
      throw Error("target class " + std::to_string(target) + " at token " + std::to_string(n) +
                  " is outside the output row of " + std::to_string(outputs[n].size()));
    marks[n] = argmax(outputs[n]) == target ? 1 : 0;
  }
  return marks;
}

Score scoreOutputs(const Sequence& outputs, const std::vector<int>& targets) {
  Score score;
  for (const int mark : tokenMarks(outputs, targets)) {
    if (mark < 0) continue;
    ++score.total;
    score.right += mark;
  }
  return score;
}

}  // namespace lsrl::seed_models
