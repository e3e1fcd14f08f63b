// Scored tasks and evaluation (core/seed_models/scored_tasks.h, model_eval.h): which tasks each
// model scores, the argmax rule, the hand-set hold toy scoring perfectly where random
// weights score about chance, and a total that depends on neither the thread count nor the
// batch size.
#include "core/seed_models/scored_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "core/seed_models/gateloop.h"
#include "core/seed_models/looped.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"
#include "core/seed_models/model_eval.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

TEST(ScoredTasks, EachModelScoresItsTasksWithTargets) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"mingru", {"selective_copy", "hold"}},
      {"minlstm", {"selective_copy", "hold"}},
      {"gateloop", {"memory_horizon"}},
      {"lattice", {}},  // the default d_in = d leaves no key channels
      {"looped", {"sudoku", "lcs", "edit_distance"}}};
  for (const auto& [kind, tasks] : expected)
    EXPECT_EQ(scoredTasks(*makeSeedModel(kind, nlohmann::json::object())), tasks) << kind;
  const auto lattice = makeSeedModel("lattice", {{"d_in", 12}, {"d", 4}, {"m", 4}});
  EXPECT_EQ(scoredTasks(*lattice), std::vector<std::string>{"assoc_recall"});
}

TEST(ScoredTasks, TargetsMatchTheGenerators) {
  const MinGruModel gru;
  const ScoredSample s = scoredSample(gru, "selective_copy", 5);
  EXPECT_EQ(s.input, gru.taskInput("selective_copy", 5));
  EXPECT_EQ(s.targets, gru.taskTargets("selective_copy", 5));

  const GateLoopModel gl;
  const ScoredSample m = scoredSample(gl, "memory_horizon", 2);
  EXPECT_EQ(m.targets, memoryHorizonSample(gl.settings().task, 2).targets);

  const LoopedModel looped;
  const ScoredSample sudoku = scoredSample(looped, "sudoku", 4);
  const LoopedTaskSample raw = looped.taskSample("sudoku", 4);
  int blanks = 0;
  for (size_t n = 0; n < raw.text.size(); ++n) {
    const bool blank = raw.text[n] == '0';
    blanks += blank;
    EXPECT_EQ(sudoku.targets[n], blank ? static_cast<int>(raw.targets[n]) : -1) << n;
  }
  EXPECT_EQ(blanks, looped.settings().task.sudokuBlanks);
  const ScoredSample lcs = scoredSample(looped, "lcs", 4);
  for (size_t n = 0; n + 1 < lcs.targets.size(); ++n) EXPECT_EQ(lcs.targets[n], -1);
  EXPECT_EQ(lcs.targets.back(), static_cast<int>(looped.taskSample("lcs", 4).targets.back()));
}

TEST(ScoredTasks, UnscoredTasksAreRefusedByName) {
  expectError([] { scoredSample(LoopedModel(), "random", 0); }, "task \"random\"",
              "scored tasks: sudoku, lcs, edit_distance");
  expectError(
      [] { scoredSample(*makeSeedModel("lattice", nlohmann::json::object()), "recall", 0); },
      "lattice", "for this config: none");
}

TEST(ScoredTasks, ArgmaxFirstOnTiesAndNanIsWrong) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Sequence out = {{0, 2, 1}, {1, 1, 0}, {1, 1, 0}, {nan, 5, 0}, {9, 9, 9}};
  const std::vector<int> targets = {1, 0, 1, 1, -1};
  EXPECT_EQ(tokenMarks(out, targets), (std::vector<int>{1, 1, 0, 0, -1}));
  const Score s = scoreOutputs(out, targets);
  EXPECT_EQ(s.right, 2);
  EXPECT_EQ(s.total, 4);
  EXPECT_DOUBLE_EQ(s.accuracy(), 0.5);
  expectError(
      [&] {
        scoreOutputs(out, {0, 0, 3, 0, 0});
      },
      "target class 3 at token 2", "outside the output row of 3");
  expectError([&] { scoreOutputs(out, {0}); }, "scored outputs", "expected 1, got 5");
}

TEST(ModelEval, TheHandSetHoldToyScoresPerfectlyAndRandomWeightsAboutChance) {
  for (const auto* kind : {"mingru", "minlstm"}) {
    SCOPED_TRACE(kind);
    const std::unique_ptr<SeedModel> hold =
        std::string(kind) == "mingru"
            ? std::unique_ptr<SeedModel>(new MinGruModel(MinGruModel::hold()))
            : std::unique_ptr<SeedModel>(new MinLstmModel(MinLstmModel::hold()));
    const Score perfect = evaluateSeedModel(*hold, "hold", 0, 50);
    EXPECT_GT(perfect.total, 1000);
    EXPECT_EQ(perfect.right, perfect.total);
    // 14 data values: chance is 1/14 ≈ 0.07.
    const Score random =
        evaluateSeedModel(*makeSeedModel(kind, nlohmann::json::object()), "selective_copy", 0, 400);
    EXPECT_EQ(random.total, 1600);
    EXPECT_LT(random.accuracy(), 0.2);
  }
}

TEST(ModelEval, TotalsDoNotDependOnTheThreadCount) {
  const GateLoopModel model;
  const Score one = evaluateSeedModel(model, "memory_horizon", 7, 23, 1);
  const Score three = evaluateSeedModel(model, "memory_horizon", 7, 23, 3);
  EXPECT_EQ(one.right, three.right);
  EXPECT_EQ(one.total, 23 * 64);
  Score byHand;
  for (uint64_t i = 0; i < 23; ++i) {
    const ScoredSample s = scoredSample(model, "memory_horizon", 7 + i);
    byHand += scoreOutputs(model.run(s.input), s.targets);
  }
  EXPECT_EQ(byHand.right, one.right);
}

// The batched path scores the same samples as the per-sample one, in chunks of at most
// `batch` (what keeps memory bounded), and the total does not depend on the batch size.
TEST(ModelEval, BatchesScoreTheSameSamplesWhateverTheirSize) {
  const LoopedModel model;  // edit_distance: samples of several lengths
  const Score reference = evaluateSeedModel(model, "edit_distance", 5, 23, 2);
  for (const int batch : {1, 7, 23, 64}) {
    SCOPED_TRACE(batch);
    std::vector<size_t> sizes;
    std::vector<Sequence> seen;
    const Score batched = evaluateSeedModelInBatches(
        model, "edit_distance", 5, 23,
        [&](const std::vector<Sequence>& inputs) {
          sizes.push_back(inputs.size());
          seen.insert(seen.end(), inputs.begin(), inputs.end());
          std::vector<Sequence> outputs;
          for (const Sequence& in : inputs) outputs.push_back(model.run(in));
          return outputs;
        },
        batch);
    EXPECT_EQ(batched.right, reference.right);
    EXPECT_EQ(batched.total, reference.total);
    ASSERT_EQ(seen.size(), 23u);
    for (size_t i = 0; i < seen.size(); ++i)
      EXPECT_EQ(seen[i], scoredSample(model, "edit_distance", 5 + i).input) << i;
    EXPECT_EQ(*std::max_element(sizes.begin(), sizes.end()),
              static_cast<size_t>(std::min(batch, 23)));
    EXPECT_EQ(sizes.size(), static_cast<size_t>((23 + batch - 1) / batch));
  }
}

TEST(ModelEval, ErrorsFromTheRunnerReachTheCaller) {
  const GateLoopModel model;
  expectError([&] { evaluateSeedModel(model, "memory_horizon", 0, 0); }, "samples",
              "at least 1, got 0");
  expectError(
      [&] {
        evaluateSeedModel(model, "memory_horizon", 0, 20, 2,
                          [](const Sequence&) -> Sequence { throw Error("device lost"); });
      },
      "device", "lost");
  const auto runAll = [&](const std::vector<Sequence>& inputs) {
    std::vector<Sequence> outputs;
    for (const Sequence& in : inputs) outputs.push_back(model.run(in));
    return outputs;
  };
  expectError([&] { evaluateSeedModelInBatches(model, "memory_horizon", 0, 5, runAll, 0); },
              "batch", "at least 1, got 0");
  expectError([&] { evaluateSeedModelInBatches(model, "memory_horizon", 0, 0, runAll); }, "samples",
              "at least 1, got 0");
  expectError([&] { evaluateSeedModelInBatches(model, "memory_horizon", 0, 5, nullptr); },
              "evaluateSeedModelInBatches", "needs a batch runner");
  expectError(
      [&] {
        evaluateSeedModelInBatches(
            model, "memory_horizon", 0, 5,
            [](const std::vector<Sequence>&) { return std::vector<Sequence>(1); }, 4);
      },
      "returned 1 output sequences", "for 4 samples");
  expectError(
      [&] {
        evaluateSeedModelInBatches(model, "memory_horizon", 0, 5,
                                   [](const std::vector<Sequence>&) -> std::vector<Sequence> {
                                     throw Error("device lost");
                                   });
      },
      "device", "lost");
  expectError([&] { evaluateSeedModelInBatches(model, "sudoku", 0, 5, runAll); }, "sudoku",
              "no targets to score");
}

}  // namespace
}  // namespace lsrl::seed_models
