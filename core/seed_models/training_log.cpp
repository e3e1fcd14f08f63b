#include "core/seed_models/training_log.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

double number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

int TrainingLog::plannedSteps() const {
  return start.is_object() && start.contains("steps") && start["steps"].is_number_integer()
             ? start["steps"].get<int>()
             : 0;
}

bool TrainingLog::interrupted() const {
  return finished() && end.value("event", std::string()) == "interrupted";
}

bool addTrainingLine(TrainingLog& log, std::string_view line) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  const std::string event =
      j.contains("event") && j["event"].is_string() ? j["event"].get<std::string>() : "";
  if (event == "start") {
    log = TrainingLog{};
    log.start = j;
    return true;
  }
  if (event == "done" || event == "interrupted" || event == "diverged") {
    log.end = j;
    return true;
  }
  if (event == "evaluating") {
    log.progress.evaluating = std::max(1, static_cast<int>(number(j, "samples")));
    return true;
  }
  const bool hasStep = j.contains("step") && j["step"].is_number_integer();
  if (event == "progress" && hasStep) {
    log.progress = {j["step"].get<int>(), number(j, "elapsed_s"), number(j, "eta_s"), 0};
    return true;
  }
  if (!event.empty() || !hasStep || !j.contains("loss") || !j["loss"].is_number()) return false;
  log.points.push_back({j["step"].get<int>(), j["loss"].get<double>(), number(j, "accuracy"),
                        number(j, "tokens_per_s"), number(j, "elapsed_s"), number(j, "eta_s")});
  const TrainingPoint& p = log.points.back();
  log.progress = {p.step, p.elapsedS, p.etaS, 0};
  return true;
}

TrainingLog readTrainingLog(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read the training log");
  TrainingLog log;
  bool any = false;
  for (std::string line; std::getline(in, line);) any = addTrainingLine(log, line) || any;
  if (!any) throw Error(path + ": not a training log (no line of lsrl train's records)");
  return log;
}

std::string trainingLogPathFor(const std::string& checkpointPath) {
  const std::string suffix = ".safetensors";
  const bool has =
      checkpointPath.size() >= suffix.size() &&
      checkpointPath.compare(checkpointPath.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has ? checkpointPath.substr(0, checkpointPath.size() - suffix.size()) : checkpointPath) +
         ".log.jsonl";
}

}  // namespace lsrl::seed_models
