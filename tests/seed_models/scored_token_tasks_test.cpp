// The token tasks in scoring (core/seed_models/scored_tasks.h): mqar and char_lm for a
// Lattice with input "tokens", whose keys scoredSample reads from the model's config alone
// (a stand-in model here, so the wiring is tested apart from the model's class), the loss
// and the accuracy by age a Score holds, and both independent of the thread count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/seed_models/assoc_recall.h"
#include "core/seed_models/char_text.h"
#include "core/seed_models/lattice.h"
#include "core/seed_models/memory_horizon.h"
#include "core/seed_models/model_eval.h"
#include "core/seed_models/mqar.h"
#include "core/seed_models/scored_tasks.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

// Stands in for the Lattice token model: a config with input "tokens", the two token
// tasks, taskInput answered from scoredSample (as the model does), and outputs that are a
// fixed function of the input.
class TokenLatticeStandIn : public SeedModel {
 public:
  explicit TokenLatticeStandIn(nlohmann::json config) : config_(std::move(config)) {
    config_["input"] = "tokens";
  }
  std::string kind() const override { return "lattice"; }
  nlohmann::json config() const override { return config_; }
  std::vector<Tensor> weights() const override { return {}; }
  int inputWidth() const override { return config_.at("d_in").get<int>(); }
  int outputWidth() const override {
    const int dOut = config_.value("d_out", 0);
    return dOut > 0 ? dOut : inputWidth();
  }
  Sequence run(const Sequence& input, Trace* = nullptr) const override {
    Sequence out;
    for (size_t t = 0; t < input.size(); ++t) {
      Vector row(static_cast<size_t>(outputWidth()));
      for (size_t j = 0; j < row.size(); ++j)
        row[j] = 3 * std::sin(1.7 * static_cast<double>(j * (t % 5 + 1)) +
                              input[t][j % input[t].size()]);
      out.push_back(row);
    }
    return out;
  }
  std::vector<std::string> tasks() const override { return {"mqar", "char_lm"}; }
  Sequence taskInput(const std::string& task, uint64_t seed) const override {
    return scoredSample(*this, task, seed).input;
  }

 private:
  nlohmann::json config_;
};

TokenLatticeStandIn tokenLattice(nlohmann::json config) {
  return TokenLatticeStandIn(std::move(config));
}

TEST(ScoredTokenTasks, MqarSamplesComeFromTheConfigsKeys) {
  const TokenLatticeStandIn model = tokenLattice({{"d_in", 15},
                                                  {"mqar_keys", 5},
                                                  {"mqar_values", 6},
                                                  {"mqar_noise", 3},
                                                  {"mqar_writes", 8},
                                                  {"mqar_queries", 4},
                                                  {"mqar_length", 30}});
  EXPECT_EQ(scoredTasks(model), (std::vector<std::string>{"mqar", "char_lm"}));
  const MqarParams p{5, 6, 8, 4, 3, 30};
  for (uint64_t seed : {0, 9}) {
    const ScoredSample s = scoredSample(model, "mqar", seed);
    const MqarSample m = mqarSample(p, seed);
    EXPECT_EQ(s.input, oneHot(m.tokens, 15));
    EXPECT_EQ(s.targets, m.targets);
    EXPECT_EQ(s.ages, m.ages);
    EXPECT_EQ(model.taskInput("mqar", seed), s.input);
  }
  // The defaults: 8 keys, 8 values, 4 noise → d_in 21.
  EXPECT_EQ(scoredSample(tokenLattice({{"d_in", 21}}), "mqar", 1).input.size(), 64u);
  expectError(
      [] {
        scoredSample(tokenLattice({{"d_in", 20}}), "mqar", 0);
      },
      "mqar: d_in 20", "vocabulary of 21 tokens");
  expectError(
      [] {
        scoredSample(tokenLattice({{"d_in", 21}, {"d_out", 10}}), "mqar", 0);
      },
      "mqar: d_out 10", "16 key and value tokens");
}

TEST(ScoredTokenTasks, CharLmSamplesReadTheConfigsText) {
  const std::string file =
      testing_common::tempPath("lsrl-scored-token-tasks-", std::to_string(getpid()) + ".txt");
  std::string text;
  for (int i = 0; i < 80; ++i) text += "Sample text, line " + std::to_string(i) + ".\n";
  std::ofstream(file) << text;
  const TokenLatticeStandIn model =
      tokenLattice({{"d_in", 97}, {"text", file}, {"lm_context", 24}});
  const ScoredSample s = scoredSample(model, "char_lm", 3);
  const CharLmSample c = charLmSample({file, 24}, 3);
  EXPECT_EQ(s.input, oneHot(c.tokens, 97));
  EXPECT_EQ(s.targets, c.targets);
  EXPECT_TRUE(s.ages.empty());
  const Score score = evaluateSeedModel(model, "char_lm", 0, 6, 2);
  EXPECT_EQ(score.total, 6 * 24);  // every position
  EXPECT_FALSE(score.hasAges());
  EXPECT_TRUE(std::isfinite(score.meanLoss()));
  expectError(
      [&] {
        scoredSample(tokenLattice({{"d_in", 21}, {"text", file}}), "char_lm", 0);
      },
      "char_lm: d_in 21", "97 character classes");
  std::filesystem::remove(file);
}

TEST(ScoredTokenTasks, OnlyATokenLatticeHasThem) {
  // The projected Lattice does not list them; a stand-in of another kind is not scored.
  const auto projected = makeSeedModel("lattice", {{"d_in", 12}, {"d", 4}, {"m", 4}});
  EXPECT_EQ(scoredTasks(*projected), std::vector<std::string>{"assoc_recall"});
}

TEST(ScoredTokenTasks, LossIsTheMeanCrossEntropyAndAgesAreBinned) {
  // Equal logits: every target costs log(d_out); the first class wins the argmax ties.
  const Sequence out(4, Vector(5, 0.25));
  const Score s = scoreOutputs(out, {0, 3, -1, 4}, {1, 9, -1, 300});
  EXPECT_EQ(s.total, 3);
  EXPECT_EQ(s.right, 1);
  EXPECT_NEAR(s.meanLoss(), std::log(5.0), 1e-9);
  EXPECT_TRUE(s.hasAges());
  EXPECT_EQ(s.byAge[0].total, 1);
  EXPECT_EQ(s.byAge[0].right, 1);
  EXPECT_EQ(s.byAge[1].total, 1);
  EXPECT_EQ(s.byAge[6].total, 1);
  // A confident right answer costs about nothing, a confident wrong one its margin.
  const Score sure = scoreOutputs({{0, 40, 0}, {30, 0, 0}}, {1, 1});
  EXPECT_NEAR(sure.loss.value(),
              std::log1p(2 * std::exp(-40.0)) + 30 + std::log1p(2 * std::exp(-30.0)), 1e-9);
  EXPECT_FALSE(sure.hasAges());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(scoreOutputs({{nan, 0}}, {1}).meanLoss()));
  expectError([&] { scoreOutputs(out, {0, 3, -1, 4}, {1}); }, "ages", "expected 4, got 1");
}

TEST(ScoredTokenTasks, AgeBins) {
  const std::vector<std::pair<int, int>> cases = {
      {0, -1}, {-1, -1}, {1, 0},  {8, 0},   {9, 1},   {16, 1},  {17, 2},  {32, 2},
      {33, 3}, {64, 3},  {65, 4}, {128, 4}, {129, 5}, {256, 5}, {257, 6}, {100000, 6}};
  for (const auto& [age, bin] : cases) EXPECT_EQ(ageBin(age), bin) << age;
  EXPECT_STREQ(ageBinName(0), "1-8");
  EXPECT_STREQ(ageBinName(5), "129-256");
  EXPECT_STREQ(ageBinName(6), ">256");
}

TEST(ScoredTokenTasks, LossSumsDoNotDependOnTheOrder) {
  std::vector<double> terms;
  for (int i = 0; i < 1000; ++i) terms.push_back(std::exp(std::sin(i * 0.37) * 6));
  LossSum forward, backward, halves, second;
  double plain = 0;
  for (const double x : terms) {
    forward.add(x);
    plain += x;
  }
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward.add(*it);
  for (size_t i = 0; i < terms.size(); ++i) (i % 2 ? second : halves).add(terms[i]);
  halves += second;
  EXPECT_EQ(forward.value(), backward.value());
  EXPECT_EQ(forward.value(), halves.value());
  EXPECT_NEAR(forward.value(), plain, 1e-9 * plain);
  LossSum bad = forward;
  bad.add(std::numeric_limits<double>::infinity());
  EXPECT_FALSE(bad.finite());
  EXPECT_TRUE(std::isnan(bad.value()));
  forward += bad;
  EXPECT_FALSE(forward.finite());
}

TEST(ScoredTokenTasks, EvaluationTotalsAndLossDoNotDependOnTheThreadCount) {
  const TokenLatticeStandIn model = tokenLattice({{"d_in", 21}});
  const Score one = evaluateSeedModel(model, "mqar", 4, 30, 1);
  const Score three = evaluateSeedModel(model, "mqar", 4, 30, 3);
  EXPECT_EQ(one.total, 30 * 8);
  EXPECT_EQ(one.right, three.right);
  EXPECT_EQ(one.loss.value(), three.loss.value());
  int64_t binned = 0;
  for (int b = 0; b < kAgeBins; ++b) {
    EXPECT_EQ(one.byAge[static_cast<size_t>(b)].total, three.byAge[static_cast<size_t>(b)].total);
    EXPECT_EQ(one.byAge[static_cast<size_t>(b)].right, three.byAge[static_cast<size_t>(b)].right);
    binned += one.byAge[static_cast<size_t>(b)].total;
  }
  EXPECT_EQ(binned, one.total);  // every mqar target has an age
  const Score batched = evaluateSeedModelInBatches(
      model, "mqar", 4, 30,
      [&](const std::vector<Sequence>& inputs) {
        std::vector<Sequence> outputs;
        for (const Sequence& in : inputs) outputs.push_back(model.run(in));
        return outputs;
      },
      7);
  EXPECT_EQ(batched.loss.value(), one.loss.value());
}

TEST(ScoredTokenTasks, AssocRecallAgesAreTokensSinceTheWrite) {
  const auto lattice = makeSeedModel("lattice", {{"d_in", 12}, {"d", 4}, {"m", 4}});
  const ScoredSample s = scoredSample(*lattice, "assoc_recall", 2);
  const auto* model = dynamic_cast<const LatticeModel*>(lattice.get());
  ASSERT_NE(model, nullptr);
  const AssocRecallParams p = *model->recallParams();
  ASSERT_EQ(s.ages.size(), s.targets.size());
  for (size_t t = 0; t < s.ages.size(); ++t) {
    if (s.targets[t] < 0) {
      EXPECT_EQ(s.ages[t], -1);
      continue;
    }
    // The write of the queried key: the earlier row with the same hot key channel.
    int written = -1;
    for (size_t w = 0; w < static_cast<size_t>(p.pairs); ++w)
      if (std::equal(s.input[w].begin(), s.input[w].begin() + p.keys, s.input[t].begin()))
        written = static_cast<int>(w);
    ASSERT_GE(written, 0);
    EXPECT_EQ(s.ages[t], static_cast<int>(t) - written);
  }
}

}  // namespace
}  // namespace lsrl::seed_models
