// lsrl export MODEL.json --format safetensors|npz [--target ARCH] [target options] -o FILE
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/target_options.h"
#include "core/compiler/compiler.h"
#include "core/compiler/model_file.h"
#include "core/graph/checks.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/targets.h"
#include "core/targets/weights_file.h"
#include "core/util/error.h"
#include "core/util/out_of_memory.h"
#include "core/util/quote_input.h"

namespace lsrl::cli {

namespace {

// The recorded --target of the compile; else the default (defaultTarget,
// core/targets/compile_to_weights.h).
std::optional<Target> recordedTarget(const CompiledModel& model) {
  if (!model.target().empty()) return targetFromName(model.target());
  return std::nullopt;
}

std::string jsonString(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return {};
  return obj[key].get<std::string>();
}

}  // namespace

int cmdExport(const Argv& argv, std::ostream& out) {
  CommandSpec spec{
      "lsrl export MODEL.json --format safetensors|npz [--target ARCH] [target options] -o FILE",
      "Builds a target architecture from a compiled model (lsrl compile) and writes its named\n"
      "float64 weight tensors and metadata (docs/weights-format.md). The target defaults to\n"
      "the one given to lsrl compile --target, else linear-rnn when the model has no Multi\n"
      "layer and gated-linear-rnn when it has; the target options given to lsrl compile apply\n"
      "to that same target, each unless given again here. Prints one JSON line describing\n"
      "the file.",
      {{"format", "safetensors|npz", "file format (default: from the extension of FILE)"},
       {"target", "ARCH",
        "linear-rnn, gated-linear-rnn, rnn, gated-rnn, gru, lstm or hawk (see above)"},
       {"o", "FILE", "output weight file (written atomically)"}},
      1,
      1};
  const std::vector<OptionSpec> targetSpecs = targetOptionSpecs();
  spec.options.insert(spec.options.end(), targetSpecs.begin(), targetSpecs.end());
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("o")) throw Error("missing -o FILE (where to write the weights)");
  const std::string outPath = args->get("o");
  std::string format;
  try {
    format = weightsFormat(outPath, args->get("format"));
  } catch (const Error& e) {
    throw Error(std::string("--format: ") + e.what());
  }

  const std::string modelPath = args->positional()[0];
  const CompiledModel model =
      whileBuilding("loading " + quotePath(modelPath), [&] { return loadModelFile(modelPath); });
  requireValidPath(model.path, modelPath);  // the same refusal as lsrl run and lsrl check
  Target target = recordedTarget(model).value_or(defaultTarget(model.path));
  if (args->has("target")) {
    const auto t = targetFromName(args->get("target"));
    if (!t) throw Error("--target: unknown architecture \"" + args->get("target") + "\"");
    target = *t;
  }
  // The options recorded with the compile's --target, overridden by those given here.
  TargetOptionValues optionValues;
  if (targetFromName(model.target()) == target && model.compiled.contains("target_options"))
    optionValues = targetOptionValuesFromJson(model.compiled["target_options"], modelPath);
  for (const auto& [name, text] : targetOptionValues(*args)) optionValues[name] = text;
  WeightsOptions weights;
  weights.target = target;
  weights.targetOptions = parseTargetOptions(target, optionValues);
  weights.compileWhen = CompileWhen::Never;  // a model file holds the compiled path
  weights.modelName = modelPath;
  const nlohmann::json source = model.compiled.value("source", nlohmann::json::object());
  weights.targetOptions.sourceName = jsonString(source, "name");
  weights.targetOptions.sourceHash = jsonString(source, "hash");
  weights.targetOptions.precision = model.compiled.value("precision", nlohmann::json());
  const CompiledWeights built =
      whileBuilding("building the weights of " + quotePath(modelPath),
                    [&] { return compileToWeightsFromCli(model.path, weights, optionValues); });

  const TensorFile& file = *built.file;
  const long long values = writeWeightsFile(file, outPath, format);

  nlohmann::ordered_json line;
  line["format"] = format;
  line["target"] = std::string(targetName(target));
  line["tensors"] = file.tensors.size();
  line["values"] = values;
  line["output"] = outPath;
  out << line.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
