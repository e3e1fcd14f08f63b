// lsrl model list | run NAME [...] | eval NAME [...] | save NAME -o W.safetensors: the seed
// architectures (core/seed_models) from the command line.
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/model_backends.h"
#include "core/io/json_util.h"
#include "core/seed_models/model_eval.h"
#include "core/seed_models/seed_model.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

nlohmann::json readConfig(const Args& args) {
  if (!args.has("config")) return nlohmann::json::object();
  const std::string path = args.get("config");
  const nlohmann::json config = io::parseJson(readWholeFile(path), path);
  if (!config.is_object()) throw Error(path + ": a model config is a JSON object");
  return config;
}

// `metadata`: the weights file's, when the model comes from one (else left as it is).
std::unique_ptr<seed_models::SeedModel> modelFor(const Args& args, const std::string& kind,
                                                 nlohmann::json* metadata) {
  if (args.has("weights")) {
    if (args.has("config"))
      throw Error("--weights holds the model's config: give --config or --weights, not both");
    return seed_models::loadSeedModel(kind, args.get("weights"), metadata);
  }
  return seed_models::makeSeedModel(kind, readConfig(args));
}

nlohmann::json rowsToJson(const seed_models::Sequence& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) out.push_back(r);
  return out;
}

// The task a run or an eval scores by default: a trained checkpoint's own task, else the
// model's first scored task (eval) or first task (run).
std::string defaultTask(const nlohmann::json& metadata, const std::string& kind,
                        const seed_models::SeedModel& model, bool scored) {
  if (metadata.contains("task") && metadata["task"].is_string())
    return metadata["task"].get<std::string>();
  if (!scored) return model.tasks().at(0);
  const std::vector<std::string> scoredTasks = seed_models::scoredTasks(model);
  if (scoredTasks.empty())
    throw Error(kind + ": this config has no task with targets to score (see lsrl model list)");
  return scoredTasks[0];
}

int seedOf(const Args& args) {
  return args.has("seed") ? parseIntValue(args.get("seed"), "--seed", 0, 1 << 30) : 0;
}

// JSON has no NaN or infinity: a loss that is not finite is null.
nlohmann::ordered_json finiteOrNull(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

// {"1-8": {"accuracy", "targets"}, ...}: the age bins with targets in them.
nlohmann::ordered_json accuracyByAge(const seed_models::Score& score) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (int b = 0; b < seed_models::kAgeBins; ++b) {
    const seed_models::TargetCount& c = score.byAge[static_cast<size_t>(b)];
    if (c.total == 0) continue;
    out[seed_models::ageBinName(b)] = {
        {"accuracy", static_cast<double>(c.right) / static_cast<double>(c.total)},
        {"targets", c.total}};
  }
  return out;
}

int evalModel(const Args& args, const std::string& kind, const seed_models::SeedModel& model,
              const nlohmann::json& metadata, std::ostream& out) {
  const std::string task =
      args.has("task") ? args.get("task") : defaultTask(metadata, kind, model, true);
  const int samples =
      args.has("samples") ? parseIntValue(args.get("samples"), "--samples", 1, 10000000) : 1000;
  const std::string backend = args.get("backend", "cpu");
  const ModelBackend which = modelBackendFromName(backend);
  if (args.has("batch") && which != ModelBackend::Vulkan)
    throw Error(
        "--batch sizes the Vulkan backend's batches (--backend vulkan); the cpu backend "
        "scores one sample per thread");
  const int batch = args.has("batch") ? parseIntValue(args.get("batch"), "--batch", 1, 65536)
                                      : seed_models::kDefaultEvalBatch;
  EvalProfile profile;
  const auto start = std::chrono::steady_clock::now();
  const seed_models::Score score =
      evaluateSeedModelOn(which, model, task, static_cast<uint64_t>(seedOf(args)), samples, batch,
                          args.has("profile") ? &profile : nullptr);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::ordered_json result;
  result["model"] = kind;
  result["task"] = task;
  result["samples"] = samples;
  result["seed"] = seedOf(args);
  result["backend"] = backend;
  if (which == ModelBackend::Vulkan) result["batch"] = batch;
  result["accuracy"] = score.accuracy();
  result["right"] = score.right;
  result["targets"] = score.total;
  const double loss = score.meanLoss();
  result["loss"] = finiteOrNull(loss);
  result["perplexity"] = finiteOrNull(std::exp(loss));
  if (score.hasAges()) result["accuracy_by_age"] = accuracyByAge(score);
  result["wall_s"] = wall;
  result["samples_per_s"] = wall > 0 ? samples / wall : 0.0;
  if (args.has("profile")) {
    out << profile.text;
    result["profile"] = profile.json;
  }
  out << result.dump() << "\n";
  return 0;
}

int listModels(std::ostream& out) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const std::string& kind : seed_models::seedModelKinds()) {
    const auto m = seed_models::makeSeedModel(kind, nlohmann::json::object());
    doc.push_back({{"model", kind},
                   {"tasks", m->tasks()},
                   {"input_width", m->inputWidth()},
                   {"output_width", m->outputWidth()},
                   {"default_config", m->config()}});
  }
  out << doc.dump() << "\n";
  return 0;
}

}  // namespace

int cmdModel(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl model list\n"
      "       lsrl model run NAME [--config CFG.json | --weights W.safetensors]\n"
      "                      [--input IN.json | --task T] [--seed N] [--backend cpu|vulkan]\n"
      "                      [--trace TRACE.json]\n"
      "       lsrl model eval NAME [--config CFG.json | --weights W.safetensors] [--task T]\n"
      "                       [--samples N] [--seed S]\n"
      "                       [--backend cpu|vulkan [--batch N] [--profile]]\n"
      "       lsrl model save NAME [--config CFG.json] -o W.safetensors",
      "The seed architectures: mingru, minlstm, gateloop, lattice, looped (docs/models.md).\n"
      "`list` prints each model's tasks, widths and default config as JSON. `run` runs a\n"
      "model (with no config: a small default, seed 0) on an input sequence (IN.json as for\n"
      "lsrl run) or a synthetic task (default: the model's first task, drawn with --seed)\n"
      "and prints {\"model\", \"task\", \"backend\", \"outputs\"}; --trace writes the trace,\n"
      "JSON with named arrays. `eval` scores a model on N samples (seeds S, S+1, ...) of a\n"
      "task with targets (default: a checkpoint's training task) and prints {\"model\",\n"
      "\"task\", \"samples\", \"accuracy\", ..., \"wall_s\", \"samples_per_s\"}: accuracy is the\n"
      "fraction of target tokens whose largest output is the target, loss their mean\n"
      "cross-entropy (natural log; null when not finite) and perplexity exp(loss); a task\n"
      "with ages (mqar, assoc_recall) adds accuracy_by_age {\"1-8\": {\"accuracy\",\n"
      "\"targets\"}, ...}, the tokens since the answer was given. On the cpu the samples\n"
      "run one per thread on all cores; on vulkan one device runs them in batches of\n"
      "--batch N (default 256; the same samples and totals whatever N); --profile adds\n"
      "where the time went: the device's dispatches, barriers, submissions and copies, the\n"
      "host's milliseconds per phase (pack, record, submit, wait, unpack), the GPU's busy\n"
      "time and span, and the host work outside them (docs/vulkan.md). `save` writes a\n"
      "model's weights and config.",
      {{"config", "CFG.json", "model config (sizes, seed, mode); missing keys: defaults"},
       {"weights", "W.safetensors", "run: weights written by lsrl model save"},
       {"input", "IN.json", "run: one token sequence {\"tokens\": [[...], ...]}"},
       {"task", "T", "run: a synthetic task (lsrl model list shows them)"},
       {"seed", "N", "run: seed of the task's input; eval: of the first sample (default 0)"},
       {"samples", "N", "eval: samples to score (default 1000)"},
       {"batch", "N", "eval on vulkan: samples per device batch (default 256)"},
       {"profile", "", "eval on vulkan: report the device timeline (\"profile\" in the JSON)"},
       {"backend", "B", "run, eval: cpu (float64, default) or vulkan (fp32)"},
       {"trace", "TRACE.json", "run: also write the trace"},
       {"o", "W.safetensors", "save: output file"}},
      1,
      2};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  const std::string& action = args->positional()[0];
  if (action == "list") {
    if (args->positional().size() != 1) throw Error("lsrl model list takes no model name");
    return listModels(out);
  }
  if (action != "run" && action != "save" && action != "eval")
    throw Error("unknown action \"" + action + "\" (list, run, eval, save)");
  if (args->positional().size() != 2)
    throw Error("lsrl model " + action + " needs a model name (lsrl model list shows them)");
  const std::string& kind = args->positional()[1];
  nlohmann::json metadata = nlohmann::json::object();
  const auto model = modelFor(*args, kind, &metadata);
  if (action == "save") {
    if (!args->has("o")) throw Error("missing -o W.safetensors (where to write the weights)");
    seed_models::saveSeedModel(*model, args->get("o"));
    out << "wrote " << args->get("o") << "\n";
    return 0;
  }
  if (action == "eval") {
    if (args->has("input") || args->has("trace"))
      throw Error("lsrl model eval scores task samples: --input and --trace are for run");
    return evalModel(*args, kind, *model, metadata, out);
  }
  if (args->has("batch")) throw Error("--batch is for lsrl model eval --backend vulkan");
  if (args->has("profile")) throw Error("--profile is for lsrl model eval --backend vulkan");
  if (args->has("input") && args->has("task")) throw Error("give --input or --task, not both");
  const std::string backend = args->get("backend", "cpu");
  const ModelBackend which = modelBackendFromName(backend);
  std::string task;
  seed_models::Sequence input;
  if (args->has("input")) {
    input = seed_models::loadSeedModelInput(args->get("input"));
  } else {
    task = args->has("task") ? args->get("task") : defaultTask(metadata, kind, *model, false);
    input = model->taskInput(task, static_cast<uint64_t>(seedOf(*args)));
  }
  seed_models::Trace trace;
  const bool wantTrace = args->has("trace");
  const seed_models::Sequence outputs =
      runSeedModel(*model, input, which, wantTrace ? &trace : nullptr);
  if (wantTrace) writeFileAtomically(args->get("trace"), trace.toJson(kind).dump() + "\n");
  nlohmann::ordered_json result;
  result["model"] = kind;
  if (!task.empty()) result["task"] = task;
  result["backend"] = backend;
  result["outputs"] = rowsToJson(outputs);
  out << result.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
