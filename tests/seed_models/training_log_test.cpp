// Training logs (core/seed_models/training_log.h): the records of lsrl train line by line, other
// lines ignored, a restart, the checkpoint's log path; and the training command.
#include "core/seed_models/training_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/expect_error.h"
#include "core/seed_models/training_command.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

constexpr const char* kStart =
    R"({"event": "start", "model": "mingru", "task": "hold", "steps": 100})";
constexpr const char* kStep =
    R"({"step": 50, "loss": 2.5, "accuracy": 0.25, "tokens_per_s": 1000.0, "lr": 0.001, "elapsed_s": 3.0, "eta_s": 3.0})";

TEST(TrainingLog, ReadsTheRecordsLineByLine) {
  TrainingLog log;
  EXPECT_TRUE(addTrainingLine(log, kStart));
  EXPECT_EQ(log.plannedSteps(), 100);
  EXPECT_FALSE(log.finished());
  EXPECT_TRUE(addTrainingLine(log, kStep));
  EXPECT_TRUE(addTrainingLine(log, R"({"step": 100, "loss": 1.5, "accuracy": 0.5})"));
  ASSERT_EQ(log.points.size(), 2u);
  EXPECT_EQ(log.points[0].step, 50);
  EXPECT_DOUBLE_EQ(log.points[0].loss, 2.5);
  EXPECT_DOUBLE_EQ(log.points[0].accuracy, 0.25);
  EXPECT_DOUBLE_EQ(log.points[0].tokensPerS, 1000);
  EXPECT_DOUBLE_EQ(log.points[0].etaS, 3);
  EXPECT_DOUBLE_EQ(log.points[1].etaS, 0);  // missing: 0
  EXPECT_TRUE(addTrainingLine(log, R"({"event": "done", "steps": 100, "eval_accuracy": 0.5})"));
  EXPECT_TRUE(log.finished());
  EXPECT_FALSE(log.interrupted());
  EXPECT_TRUE(addTrainingLine(log, R"({"event": "interrupted", "steps": 7})"));
  EXPECT_TRUE(log.interrupted());
  // A run stopped by a non-finite loss has ended too, but was not interrupted.
  EXPECT_TRUE(addTrainingLine(log, R"({"event": "diverged", "step": 8, "steps": 7})"));
  EXPECT_TRUE(log.finished());
  EXPECT_FALSE(log.interrupted());
}

TEST(TrainingLog, ProgressRecordsMoveTheStepWithoutAPoint) {
  TrainingLog log;
  addTrainingLine(log, kStart);
  EXPECT_EQ(log.progress.step, 0);
  EXPECT_TRUE(addTrainingLine(log, R"({"step": 1, "loss": 2.7, "accuracy": 0.1, "eta_s": 9.0})"));
  EXPECT_EQ(log.progress.step, 1);
  EXPECT_TRUE(
      addTrainingLine(log, R"({"event": "progress", "step": 2, "elapsed_s": 0.5, "eta_s": 8.0})"));
  EXPECT_EQ(log.points.size(), 1u);
  EXPECT_EQ(log.progress.step, 2);
  EXPECT_DOUBLE_EQ(log.progress.etaS, 8);
  EXPECT_FALSE(addTrainingLine(log, R"({"event": "progress"})"));
  EXPECT_TRUE(addTrainingLine(log, R"({"event": "evaluating", "samples": 500})"));
  EXPECT_EQ(log.progress.evaluating, 500);
  EXPECT_EQ(log.progress.step, 2);
}

TEST(TrainingLog, OtherLinesAreIgnoredAndAStartBeginsAgain) {
  TrainingLog log;
  for (const char* line : {"", "UserWarning: something", "[1, 2]", R"({"step": "x", "loss": 1})",
                           R"({"step": 3})", R"({"event": "other"})", "{\"step\": 1, "})
    EXPECT_FALSE(addTrainingLine(log, line)) << line;
  EXPECT_TRUE(log.points.empty());
  addTrainingLine(log, kStart);
  addTrainingLine(log, kStep);
  addTrainingLine(log, kStart);
  EXPECT_TRUE(log.points.empty());
}

TEST(TrainingLog, FilesAndTheirPaths) {
  EXPECT_EQ(trainingLogPathFor("/a/mingru.safetensors"), "/a/mingru.log.jsonl");
  EXPECT_EQ(trainingLogPathFor("weights"), "weights.log.jsonl");
  const std::string path = testing::TempDir() + "/lsrl-training-log-" + std::to_string(getpid());
  { std::ofstream(path) << kStart << "\nnoise\n" << kStep << "\n"; }
  const TrainingLog log = readTrainingLog(path);
  EXPECT_EQ(log.start["model"], "mingru");
  EXPECT_EQ(log.points.size(), 1u);
  { std::ofstream(path) << "no records here\n"; }
  expectError([&] { readTrainingLog(path); }, path, "not a training log");
  std::remove(path.c_str());
  expectError([&] { readTrainingLog(path); }, path, "cannot read");
}

TEST(TrainingCommand, RunsTheTrainingScriptWithTheArguments) {
  const TrainingCommand c = trainingCommand({"mingru", "--steps", "5", "-o", "w.safetensors"});
  ASSERT_GE(c.argv.size(), 7u);
  EXPECT_EQ(c.argv[1], "-c");
  EXPECT_NE(c.argv[2].find("lsrl.torch.train"), std::string::npos);
  EXPECT_NE(c.argv[2].find("python3-torch"), std::string::npos);
  EXPECT_EQ(std::vector<std::string>(c.argv.begin() + 3, c.argv.end()),
            (std::vector<std::string>{"mingru", "--steps", "5", "-o", "w.safetensors"}));
  EXPECT_TRUE(c.env.count("PYTHONPATH"));
}

}  // namespace
}  // namespace lsrl::seed_models
