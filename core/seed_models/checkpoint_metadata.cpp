#include "core/seed_models/checkpoint_metadata.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/io/json_util.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using nlohmann::json;

enum class Kind { Count, Number, Fraction, Boolean, String, Object };

// The training record's entries (train.py writes them; the explorer's weights note reads
// them as int, double, bool and string).
struct TrainingEntry {
  const char* key;
  Kind kind;
};
constexpr TrainingEntry kTrainingEntries[] = {
    {"steps", Kind::Count},
    {"steps_planned", Kind::Count},
    {"seed", Kind::Count},
    {"batch", Kind::Count},
    {"eval_samples", Kind::Count},
    {"eval_seed", Kind::Count},
    {"diverged_at_step", Kind::Count},
    {"lr", Kind::Number},
    {"clip", Kind::Number},
    {"wall_s", Kind::Number},
    {"eval_accuracy", Kind::Fraction},
    {"eval_loss", Kind::Number},
    {"eval_perplexity", Kind::Number},
    {"eval_accuracy_by_age", Kind::Object},
    {"interrupted", Kind::Boolean},
    {"init", Kind::String},
    {"command", Kind::String},
    {"dtype", Kind::String},
};

const char* expected(Kind kind) {
  switch (kind) {
    case Kind::Count:
      return "an integer in 0..2147483647";
    case Kind::Number:
      return "a finite number";
    case Kind::Fraction:
      return "a number in 0..1";
    case Kind::Boolean:
      return "true or false";
    case Kind::String:
      return "a string";
    case Kind::Object:
      return "an object";
  }
  return "";
}

bool fits(const json& v, Kind kind) {
  switch (kind) {
    case Kind::Count: {
      long long n = 0;
      return io::jsonInteger(v, n) && n >= 0 && n <= INT_MAX;
    }
    case Kind::Number:
      return v.is_number() && std::isfinite(v.get<double>());
    case Kind::Fraction:
      return v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1;
    case Kind::Boolean:
      return v.is_boolean();
    case Kind::String:
      return v.is_string();
    case Kind::Object:
      return v.is_object();
  }
  return false;
}

// `key`: "\"task\"", "\"training\" \"steps\"".
void require(const std::string& file, const std::string& key, const json& v, Kind kind) {
  if (!fits(v, kind))
    throw Error(file + ": metadata " + key + ": expected " + expected(kind) + ", got " +
                io::describeJson(v));
}

}  // namespace

void checkCheckpointMetadata(const std::string& file, const json& meta) {
  if (!meta.is_object())
    throw Error(file + ": metadata: expected an object, got " + io::describeJson(meta));
  const std::pair<const char*, Kind> top[] = {{"model", Kind::String},
                                              {"config", Kind::Object},
                                              {"task", Kind::String},
                                              {"training", Kind::Object}};
  for (const auto& [key, kind] : top)
    if (meta.contains(key)) require(file, "\"" + std::string(key) + "\"", meta[key], kind);
  if (!meta.contains("training")) return;
  const json& training = meta["training"];
  for (const TrainingEntry& e : kTrainingEntries)
    if (training.contains(e.key))
      require(file, "\"training\" \"" + std::string(e.key) + "\"", training[e.key], e.kind);
}

void checkCheckpointTask(const std::string& file, const json& meta,
                         const std::vector<std::string>& tasks) {
  if (!meta.is_object() || !meta.contains("task")) return;
  const json& task = meta["task"];
  if (task.is_string() &&
      std::find(tasks.begin(), tasks.end(), task.get<std::string>()) != tasks.end())
    return;
  std::string known;
  for (const std::string& t : tasks) known += (known.empty() ? "" : ", ") + t;
  throw Error(file + ": metadata \"task\": expected one of this model's tasks (" + known +
              "), got " + io::describeJson(task));
}

}  // namespace lsrl::seed_models
