// The seed models (core/seed_models) for Python: what lsrl.torch needs to check its PyTorch
// twins against the C++ float64 models, to draw training data from the same task
// generators as `lsrl model` and the explorer, and to read and write checkpoints in the
// format `lsrl model run --weights` loads. Configs and metadata are dicts (through json).
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/python/bindings/common.h"
#include "app/python/bindings/tensor_arrays.h"
#include "core/io/json_util.h"
#include "core/io/safetensors.h"
#include "core/seed_models/scored_tasks.h"
#include "core/seed_models/seed_model.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

std::unique_ptr<seed_models::SeedModel> modelOf(const std::string& kind, pyb::handle config,
                                                pyb::handle weights) {
  const nlohmann::json cfg = toJson(config, kind + " config");
  if (weights.is_none()) return seed_models::makeSeedModel(kind, cfg);
  return seed_models::makeSeedModel(kind, cfg, tensorsFromPython(weights));
}

}  // namespace

void registerModels(pyb::module_& m) {
  m.def("seed_model_kinds", &seed_models::seedModelKinds, "The seed models' kinds.");
  m.def(
      "seed_model_init",
      [](const std::string& kind, pyb::handle config) {
        const auto model = modelOf(kind, config, pyb::none());
        return pyb::make_tuple(fromJson(model->config()), tensorsToDict(model->weights()));
      },
      pyb::arg("kind"), pyb::arg("config") = pyb::none(),
      "(full config, {name: float64 array}) of the seeded model `config` describes.");
  m.def(
      "seed_model_run",
      [](const std::string& kind, pyb::handle config, pyb::handle weights,
         const pyb::array_t<double, pyb::array::c_style | pyb::array::forcecast>& inputs) {
        const auto model = modelOf(kind, config, weights);
        seed_models::Trace trace;
        const seed_models::Sequence out =
            model->run(rowsOf(inputs, model->inputWidth(), kind), &trace);
        return pyb::make_tuple(rowsToArray(out, model->outputWidth()),
                               tensorsToDict(trace.arrays()));
      },
      pyb::arg("kind"), pyb::arg("config"), pyb::arg("weights"), pyb::arg("inputs"),
      "(outputs [T][d_out], trace {name: array}) of the C++ float64 model on one sequence; "
      "weights None: the seeded initialisation of `config`.");
  m.def(
      "seed_scored_tasks",
      [](const std::string& kind, pyb::handle config) {
        return seed_models::scoredTasks(*modelOf(kind, config, pyb::none()));
      },
      pyb::arg("kind"), pyb::arg("config") = pyb::none(),
      "The model's tasks with class targets (what training and lsrl model eval score).");
  m.def(
      "seed_task_batch",
      [](const std::string& kind, pyb::handle config, const std::string& task, uint64_t seed,
         int count, bool withAges) -> pyb::tuple {
        if (count < 1 || count > 1000000)
          throw Error("count must be between 1 and 1000000, got " + std::to_string(count));
        const auto model = modelOf(kind, config, pyb::none());
        std::vector<seed_models::ScoredSample> samples;
        for (int i = 0; i < count; ++i)
          samples.push_back(
              seed_models::scoredSample(*model, task, seed + static_cast<uint64_t>(i)));
        const auto T = static_cast<pyb::ssize_t>(samples[0].input.size());
        const auto W = static_cast<pyb::ssize_t>(model->inputWidth());
        pyb::array_t<double> x({static_cast<pyb::ssize_t>(count), T, W});
        pyb::array_t<int64_t> y({static_cast<pyb::ssize_t>(count), T});
        pyb::array_t<int64_t> ages({static_cast<pyb::ssize_t>(count), T});
        double* px = x.mutable_data();
        int64_t* py = y.mutable_data();
        int64_t* pa = ages.mutable_data();
        for (const auto& s : samples) {
          if (static_cast<pyb::ssize_t>(s.input.size()) != T)
            throw Error(kind + " task \"" + task + "\": samples differ in length");
          for (const auto& row : s.input) px = std::copy(row.begin(), row.end(), px);
          py = std::copy(s.targets.begin(), s.targets.end(), py);
          pa =
              s.ages.empty() ? std::fill_n(pa, T, -1) : std::copy(s.ages.begin(), s.ages.end(), pa);
        }
        if (withAges) return pyb::make_tuple(x, y, ages);
        return pyb::make_tuple(x, y);
      },
      pyb::arg("kind"), pyb::arg("config"), pyb::arg("task"), pyb::arg("seed"), pyb::arg("count"),
      pyb::arg("with_ages") = false,
      "(x [count][T][w] float64, y [count][T] int64, −1 = no target): samples seed, "
      "seed + 1, ... of a scored task, from the generators lsrl model uses; with_ages adds "
      "ages [count][T] int64 (tokens since the answer was given, −1 = none; "
      "core/seed_models/scored_tasks.h).");
  m.def(
      "seed_model_save",
      [](const std::string& kind, pyb::handle config, const pyb::dict& weights,
         const std::string& path, pyb::handle extra) {
        const auto model = modelOf(kind, config, weights);
        seed_models::saveSeedModel(*model, path, toJson(extra, "checkpoint metadata"));
      },
      pyb::arg("kind"), pyb::arg("config"), pyb::arg("weights"), pyb::arg("path"),
      pyb::arg("metadata") = pyb::none(),
      "Writes a weights file lsrl model run --weights loads (checked by building the C++ "
      "model first); `metadata` adds entries such as \"task\" and \"training\".");
  m.def(
      "seed_model_load",
      [](const std::string& path) {
        const TensorFile file = readSafetensors(path);
        const nlohmann::json meta = io::parseJson(
            file.metadataJson.empty() ? std::string("null") : file.metadataJson, path);
        if (!meta.is_object() || !meta.contains("model") || !meta["model"].is_string())
          throw Error(path + ": not a seed-model weights file (no \"model\" in its metadata)");
        const std::string kind = meta["model"].get<std::string>();
        const auto model = seed_models::loadSeedModel(kind, path);
        return pyb::make_tuple(kind, fromJson(model->config()), tensorsToDict(model->weights()),
                               fromJson(meta));
      },
      pyb::arg("path"), "(kind, config, {name: array}, metadata) of a seed-model weights file.");
}

}  // namespace lsrl::py
