#include "core/seed_models/scored_tasks.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/seed_models/char_text.h"
#include "core/seed_models/gateloop.h"
#include "core/seed_models/lattice.h"
#include "core/seed_models/looped.h"
#include "core/seed_models/memory_horizon.h"
#include "core/seed_models/min_rnn_model.h"
#include "core/seed_models/mqar.h"
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

// The targets (and ages) of a task whose input is model.taskInput's.
void fillTargets(const SeedModel& model, const std::string& task, uint64_t seed, ScoredSample& s) {
  if (const auto* m = dynamic_cast<const MinRnnModel*>(&model)) {
    if (task == "selective_copy" || task == "hold") s.targets = m->taskTargets(task, seed);
  } else if (const auto* g = dynamic_cast<const GateLoopModel*>(&model)) {
    if (task == "memory_horizon") s.targets = memoryHorizonSample(g->settings().task, seed).targets;
  } else if (const auto* l = dynamic_cast<const LatticeModel*>(&model)) {
    if (task == "assoc_recall" && l->recallParams()) {
      AssocRecallSample a = assocRecallSample(*l->recallParams(), seed);
      s.targets = std::move(a.targets);
      s.ages = std::move(a.ages);
    }
  } else if (const auto* t = dynamic_cast<const LoopedModel*>(&model)) {
    if (task == "sudoku") s.targets = blankCells(t->taskSample(task, seed));
    if (task == "lcs" || task == "edit_distance")
      s.targets = latestOnly(t->taskSample(task, seed).targets);
  }
}

// The token model's tasks (Lattice with input "tokens", docs/spec/seed-models.md §1.8a),
// from the keys of its config: the whole sample is made here, never through
// model.taskInput, which that model answers from scoredSample.
std::optional<ScoredSample> tokenTaskSample(const SeedModel& model, const std::string& task,
                                            uint64_t seed) {
  if ((task != "mqar" && task != "char_lm") || model.kind() != "lattice") return std::nullopt;
  const nlohmann::json config = model.config();
  if (!config.is_object() || config.value("input", std::string()) != "tokens") return std::nullopt;
  if (task == "mqar") {
    const MqarParams p = mqarParams(config);
    checkMqarParams(p);
    checkMqarWidths(p, model.inputWidth(), model.outputWidth());
    MqarSample m = mqarSample(p, seed);
    return ScoredSample{oneHot(m.tokens, p.vocabulary()), std::move(m.targets), std::move(m.ages)};
  }
  checkCharLmWidths(model.inputWidth(), model.outputWidth());
  CharLmSample c = charLmSample(charLmParams(config), seed);
  return ScoredSample{oneHot(c.tokens, kCharClasses), std::move(c.targets), {}};
}

const std::vector<std::string>& candidateTasks() {
  static const std::vector<std::string> names = {"selective_copy", "hold", "memory_horizon",
                                                 "assoc_recall",   "mqar", "char_lm",
                                                 "sudoku",         "lcs",  "edit_distance"};
  return names;
}

// log Σ exp(row) − row[target], as (max − row[target]) + log Σ exp(row − max): both terms
// are ≥ 0, so rounding never makes the loss negative.
double crossEntropy(const Vector& row, int target) {
  double top = row[0];
  for (const double x : row) top = std::max(top, x);
  double sum = 0;
  for (const double x : row) sum += std::exp(x - top);
  return (top - row[static_cast<size_t>(target)]) + std::log(sum);
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
  std::optional<ScoredSample> token = tokenTaskSample(model, task, seed);
  ScoredSample s;
  if (token) {
    s = std::move(*token);
  } else {
    s.input = model.taskInput(task, seed);
    fillTargets(model, task, seed, s);
  }
  requireSize(model.kind() + " task \"" + task + "\" targets", s.input.size(), s.targets.size());
  if (!s.ages.empty())
    requireSize(model.kind() + " task \"" + task + "\" ages", s.targets.size(), s.ages.size());
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

Score scoreOutputs(const Sequence& outputs, const std::vector<int>& targets,
                   const std::vector<int>& ages) {
  if (!ages.empty()) requireSize("ages (one per target)", targets.size(), ages.size());
  const std::vector<int> marks = tokenMarks(outputs, targets);
  Score score;
  for (size_t n = 0; n < marks.size(); ++n) {
    if (marks[n] < 0) continue;
    ++score.total;
    score.right += marks[n];
    score.loss.add(crossEntropy(outputs[n], targets[n]));
    const int bin = ages.empty() ? -1 : ageBin(ages[n]);
    if (bin < 0) continue;
    ++score.byAge[static_cast<size_t>(bin)].total;
    score.byAge[static_cast<size_t>(bin)].right += marks[n];
  }
  return score;
}

int ageBin(int age) {
  if (age < 1) return -1;
  int bin = 0;
  for (int top = 8; bin < kAgeBins - 1 && age > top; top *= 2) ++bin;
  return bin;
}

const char* ageBinName(int bin) {
  static const char* const names[kAgeBins] = {"1-8",    "9-16",    "17-32", "33-64",
                                              "65-128", "129-256", ">256"};
  if (bin < 0 || bin >= kAgeBins) throw Error("age bin " + std::to_string(bin) + " is not 0..6");
  return names[bin];
}

void LossSum::add(double loss) {
  // 2^31: far above any loss of a softmax over a row a model produces, and low enough that
  // a term scaled by 2^32 fits 64 bits.
  if (!(loss >= 0 && loss < 2147483648.0)) {
    finite_ = false;
    return;
  }
  const auto units = static_cast<uint64_t>(std::llround(std::ldexp(loss, 32)));
  low_ += units;
  high_ += low_ < units;  // the carry
}

LossSum& LossSum::operator+=(const LossSum& o) {
  low_ += o.low_;
  high_ += o.high_ + (low_ < o.low_);
  finite_ = finite_ && o.finite_;
  return *this;
}

double LossSum::value() const {
  if (!finite_) return std::nan("");
  return std::ldexp(static_cast<double>(high_), 32) + std::ldexp(static_cast<double>(low_), -32);
}

double Score::meanLoss() const {
  return total == 0 ? std::nan("") : loss.value() / static_cast<double>(total);
}

bool Score::hasAges() const {
  return std::any_of(byAge.begin(), byAge.end(), [](const TargetCount& c) { return c.total > 0; });
}

Score& Score::operator+=(const Score& o) {
  right += o.right;
  total += o.total;
  loss += o.loss;
  for (size_t b = 0; b < byAge.size(); ++b) {
    byAge[b].right += o.byAge[b].right;
    byAge[b].total += o.byAge[b].total;
  }
  return *this;
}

}  // namespace lsrl::seed_models
