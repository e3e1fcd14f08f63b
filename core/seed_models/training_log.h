// Training logs of `lsrl train` (app/python/lsrl/torch/train.py): one JSON object per line,
// {"event": "start", ...}, then {"step", "loss", "accuracy", "tokens_per_s", "elapsed_s",
// "eta_s", ...} after the first step and per log interval, then {"event": "done" |
// "interrupted" | "diverged", ...}; with --progress, {"event": "progress", "step", ...} after every
// other step and {"event": "evaluating", "samples"} before the held-out score. The
// explorer's Training view plots them, live from the training process or from the
// W.log.jsonl beside a checkpoint.
//
//   TrainingLog log = readTrainingLog("mingru.log.jsonl");
//   log.points.back().accuracy;   log.finished();
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace lsrl::seed_models {

struct TrainingPoint {
  int step = 0;
  double loss = 0;
  double accuracy = 0;  // on the training batches of the interval
  double tokensPerS = 0;
  double elapsedS = 0;
  double etaS = 0;
};

// How far a run is, from its points and its progress records (the latest of either).
struct TrainingProgress {
  int step = 0;  // steps done
  double elapsedS = 0;
  double etaS = 0;
  int evaluating = 0;  // > 0: training is over, this many held-out samples are being scored
};

struct TrainingLog {
  nlohmann::json start;  // model, task, config, steps, seed, init, ...; null before it came
  std::vector<TrainingPoint> points;
  TrainingProgress progress;
  nlohmann::json end;  // the "done", "interrupted" or "diverged" record; null while it runs

  int plannedSteps() const;  // start's "steps", else 0
  bool finished() const { return end.is_object(); }
  bool interrupted() const;
};

// Adds one line of a log. False (log unchanged) for a line that is not a training record
// (blank, not JSON, or a JSON value of another shape: warnings a library printed).
bool addTrainingLine(TrainingLog& log, std::string_view line);
// A whole log file; throws lsrl::Error naming the file when it cannot be read or holds no
// training record.
TrainingLog readTrainingLog(const std::string& path);
// Where `lsrl train -o W.safetensors` writes its log: W.log.jsonl.
std::string trainingLogPathFor(const std::string& checkpointPath);

}  // namespace lsrl::seed_models
