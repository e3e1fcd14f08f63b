// Compiled programs as named tensors, for lsrl.torch.from_compiled (a trainable PyTorch
// module of any target) and save_compiled (the module back as the weights file lsrl export
// writes): the one path of lsrl compile + lsrl export (precision fit, target options,
// compileToWeights), the C++ float64 forward the modules are held to, and the checked
// writer of fine-tuned files (docs/python.md, "Compiled programs as PyTorch modules").
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/python/bindings/common.h"
#include "app/python/bindings/tensor_arrays.h"
#include "core/compiler/model_file.h"
#include "core/graph/checks.h"
#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/io/python_program.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/import.h"
#include "core/targets/precision_request.h"
#include "core/targets/target_option_values.h"
#include "core/targets/weights_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/nonfinite.h"

namespace lsrl::py {

namespace {

// What a compile starts from: a program (with its file's metadata, for a declared domain)
// or a compiled model's path (with its "compiled" record).
struct CompileSource {
  Graph graph;
  nlohmann::json programMetadata;  // null for a model
  nlohmann::json compiled;         // null for a program
  std::string name;
  std::string hash;
  std::string where;  // names the source in errors
  bool isModel() const { return !compiled.is_null(); }
};

std::string jsonText(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return {};
  return obj[key].get<std::string>();
}

Target targetNamed(const std::string& name) {
  const auto t = targetFromName(name);
  if (!t) {
    std::string names;
    for (Target k : allTargets()) names += (names.empty() ? "" : ", ") + std::string(targetName(k));
    throw Error("target: unknown architecture \"" + name + "\"; expected one of " + names);
  }
  return *t;
}

// A model file's recorded precision, as the name lsrl compile --precision takes.
std::string recordedPrecision(const nlohmann::json& compiled) {
  const nlohmann::json record = compiled.value("precision", nlohmann::json());
  return record.is_object() ? jsonText(record, "precision") : std::string("exact");
}

// The weights and what produced them: (info dict, [(name, array)], metadata JSON text).
pyb::tuple compileTarget(CompileSource source, const std::optional<std::string>& targetText,
                         const TargetOptionValues& given,
                         const std::optional<std::string>& precisionText,
                         const std::optional<std::string>& grid) {
  std::optional<Target> target;
  if (targetText) target = targetNamed(*targetText);
  TargetOptionValues values = given;
  nlohmann::json precisionRecord;
  std::string note;
  WeightsOptions w;
  if (source.isModel()) {
    // As lsrl export: the recorded target and its options, each overridden when given.
    requireValidPath(source.graph, source.where);
    const std::string recordedTarget = jsonText(source.compiled, "target");
    if (!target && !recordedTarget.empty()) target = targetNamed(recordedTarget);
    if (!target) target = defaultTarget(source.graph);
    if (!recordedTarget.empty() && targetFromName(recordedTarget) == target &&
        source.compiled.contains("target_options")) {
      TargetOptionValues recorded =
          targetOptionValuesFromJson(source.compiled["target_options"], source.where);
      for (const auto& [name, text] : given) recorded[name] = text;
      values = std::move(recorded);
    }
    const std::string fixed = recordedPrecision(source.compiled);
    if (grid) throw Error("input_grid: " + source.where + " is compiled; its constants are fixed");
    if (precisionText && *precisionText != fixed)
      throw Error("precision=\"" + *precisionText + "\": " + source.where +
                  " was compiled with precision " + fixed +
                  " and its constants are fixed; compile the program with --precision " +
                  *precisionText + " instead");
    precisionRecord = source.compiled.value("precision", nlohmann::json());
    w.compileWhen = CompileWhen::Never;
  } else {
    PrecisionRequest request =
        precisionRequest(precisionText, values, grid, source.programMetadata);
    if (request.fits()) dropDomainWhereUnread(target, values);  // they were for the fit
    if (!target && !values.empty())
      throw Error(values.begin()->first + " needs target=... (it is a target option)");
    precisionRecord = fitForPrecision(source.graph, request, &note);
  }
  if (target) w.targetOptions = parseTargetOptions(*target, values);
  w.target = target;
  w.modelName = source.where;
  w.targetOptions.sourceName = source.name;
  w.targetOptions.sourceHash = source.hash;
  w.targetOptions.precision = precisionRecord;
  CompiledWeights built;
  {
    pyb::gil_scoped_release release;
    built = compileToWeights(source.graph, w);
  }
  pyb::dict info;
  info["target"] = std::string(targetName(built.target));
  info["target_options"] = values;
  info["source"] = fromJson({{"program", source.name}, {"hash", source.hash}});
  info["precision"] = fromJson(precisionRecord);
  info["compile"] = fromJson({{"backend", std::string(backendName(w.compile.backend))},
                              {"optimize", w.compile.optimize},
                              {"from", source.isModel() ? "model" : "program"}});
  info["note"] = note;
  return pyb::make_tuple(info, tensorsToList(built.tensors()), built.file->metadataJson);
}

CompileSource sourceOfFile(const std::string& path) {
  CompileSource s;
  s.where = "\"" + path + "\"";
  const std::filesystem::path p(path);
  if (p.extension() == ".json") {
    const nlohmann::json doc = io::parseJson(readWholeFile(path), path);
    if (isModelDocument(doc)) {
      CompiledModel model = modelFromJson(doc, path);
      s.compiled = model.compiled;
      s.graph = std::move(model.path);
      const nlohmann::json from = s.compiled.value("source", nlohmann::json::object());
      s.name = jsonText(from, "name");
      s.hash = jsonText(from, "hash");
      return s;
    }
  }
  s.graph = loadProgramFile(path, &s.programMetadata);
  s.name = jsonText(s.programMetadata, "program");
  if (s.name.empty()) s.name = p.stem().string();
  s.hash = graphHash(s.graph);
  return s;
}

CompileSource sourceOfGraph(const std::shared_ptr<Graph>& g, NodeId output,
                            const std::string& compiled, const std::string& name) {
  CompileSource s;
  s.where = name.empty() ? "the program" : "\"" + name + "\"";
  s.name = name;
  if (!compiled.empty()) {
    s.compiled = io::parseJson(compiled, "compiled");
    s.graph = *g;
    s.graph.setOutput(output);
    const nlohmann::json from = s.compiled.value("source", nlohmann::json::object());
    s.hash = jsonText(from, "hash");
    if (s.name.empty()) s.name = jsonText(from, "name");
    return s;
  }
  s.graph = programOnly(*g, output);  // what save_json writes, so that its hash matches
  s.hash = graphHash(s.graph);
  return s;
}

TensorFile fileOf(pyb::handle tensors, const std::string& metadata) {
  TensorFile file;
  file.tensors = tensorsFromPython(tensors);
  file.metadataJson = metadata;
  return file;
}

// save_compiled's checks before anything is written: finite values, a module that
// matches its metadata (importTargetModel rebuilds the model from both).
void saveFineTuned(pyb::handle tensors, const std::string& metadata, const std::string& path,
                   pyb::handle fineTuned) {
  TensorFile file = fileOf(tensors, metadata);
  for (const Tensor& t : file.tensors) {
    const size_t bad = firstNonFinite(std::span<const double>(t.data));
    if (bad < t.data.size())
      throw Error("save_compiled: tensor \"" + t.name + "\" holds " + std::to_string(t.data[bad]) +
                  " at flat index " + std::to_string(bad) +
                  " (training diverged?); nothing was written to \"" + path + "\"");
  }
  nlohmann::json meta = io::parseJson(metadata, "metadata");
  meta["fine_tuned"] = toJson(fineTuned, "fine_tuned");
  file.metadataJson = meta.dump();
  importTargetModel(file, path);  // throws naming a missing or mis-shaped tensor
  pyb::gil_scoped_release release;
  writeWeightsFile(file, path, weightsFormat(path));
}

}  // namespace

void registerWeights(pyb::module_& m) {
  using pyb::arg;
  m.def(
      "compiled_target",
      [](const std::shared_ptr<Graph>& g, NodeId output, const std::string& compiled,
         const std::string& name, const std::optional<std::string>& target,
         const TargetOptionValues& options, const std::optional<std::string>& precision,
         const std::optional<std::string>& grid) {
        return compileTarget(sourceOfGraph(g, output, compiled, name), target, options, precision,
                             grid);
      },
      arg("graph"), arg("output"), arg("compiled"), arg("name"), arg("target"), arg("options"),
      arg("precision"), arg("input_grid"),
      "(info, [(name, float64 array)], metadata JSON) of a ForEach's target weights: "
      "`compiled` is its model metadata (\"\" for a program).");
  m.def(
      "compiled_target_file",
      [](const std::string& path, const std::string& name, const std::optional<std::string>& target,
         const TargetOptionValues& options, const std::optional<std::string>& precision,
         const std::optional<std::string>& grid) {
        CompileSource source = sourceOfFile(path);
        if (!name.empty()) source.name = name;
        return compileTarget(std::move(source), target, options, precision, grid);
      },
      arg("path"), arg("name"), arg("target"), arg("options"), arg("precision"), arg("input_grid"),
      "The same for a program file (graph JSON or .py; its declared domain applies) or a "
      "compiled model file (its recorded target, options and precision apply); `name` "
      "(\"\": the file's) names the program in the metadata.");
  m.def(
      "target_run",
      [](const pyb::handle tensors, const std::string& metadata, const InputArray& inputs) {
        const FloatTargetModel model = importTargetModel(fileOf(tensors, metadata), "weights");
        const FloatRows rows = rowsOf(inputs, model.inputDim(), "target_run");
        FloatRows out;
        {
          pyb::gil_scoped_release release;
          out = model.run(rows);
        }
        return rowsToArray(out, model.outputDim());
      },
      arg("tensors"), arg("metadata"), arg("inputs"),
      "Outputs [T][d_out] of the C++ float64 target model these tensors and metadata make "
      "(what lsrl run computes), on one sequence [T][d_in].");
  m.def("save_target_weights", &saveFineTuned, arg("tensors"), arg("metadata"), arg("path"),
        arg("fine_tuned"),
        "Writes a weights file lsrl run and the explorer open, with metadata \"fine_tuned\" "
        "added; refuses non-finite values and tensors that do not fit the metadata.");
}

}  // namespace lsrl::py
