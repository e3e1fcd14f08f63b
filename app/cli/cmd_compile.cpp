// lsrl compile PROGRAM.json --backend exact|float64 [--target ARCH [target options]]
//              [--precision exact|float64|fp32 --box LO,HI --horizon T [--input-grid S]]
//              [--no-optimize] [--history HIST.json [--history-limit SIZE]] [--progress]
//              -o MODEL.json

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/precision_options.h"
#include "app/cli/progress_printer.h"
#include "app/cli/sigint_scope.h"
#include "app/cli/target_options.h"
#include "core/compiler/compiler.h"
#include "core/compiler/history_file.h"
#include "core/compiler/model_file.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/io/python_program.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/targets.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_lock.h"
#include "core/util/out_of_memory.h"
#include "core/util/quote_input.h"
#include "core/util/thousands.h"

namespace lsrl::cli {

namespace {

Backend parseBackend(const std::string& text) {
  if (text == "exact") return Backend::Exact;
  if (text == "float64") return Backend::Float64;
  throw Error("--backend: unknown backend \"" + text + "\"; expected exact or float64");
}

std::string targetNames() {
  std::string names;
  for (Target t : allTargets()) names += (names.empty() ? "" : ", ") + std::string(targetName(t));
  return names;
}

// The program's name: its metadata "program" when it has one, else the file's stem.
std::string programName(const std::string& path, const nlohmann::json& metadata) {
  if (metadata.is_object() && metadata.contains("program") && metadata["program"].is_string())
    return metadata["program"].get<std::string>();
  return std::filesystem::path(path).stem().string();
}

// Removes a JSON file written by this command and its sidecar, if any.
void removeWithSidecar(const std::string& path) {
  FolderLock lock(path, FolderLock::Kind::Exclusive);  // as a save does (docs/model-format.md)
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  removeSupersededSidecars(path, "");
}

void stopIfInterrupted(const std::string& when) {
  if (SigintScope::interrupted()) throw Cancelled("stopped " + when);
}

}  // namespace

int cmdCompile(const Argv& argv, std::ostream& out) {
  CommandSpec spec{
      "lsrl compile PROGRAM.json|PROGRAM.py --backend exact|float64 [--target ARCH [target\n"
      "                    options]] [--precision exact|float64|fp32 --box LO,HI --horizon T]\n"
      "                    [--no-optimize] [--history HIST.json] [--progress] -o MODEL.json",
      "Compiles a program (a graph file, or a Python file written with the lsrl module: its\n"
      "module-level `program`, else the last ForEach it creates) into a path of Linear / ReLU / "
      "LinState / Multi layers and saves it\n"
      "as a model file (docs/model-format.md: JSON, with large matrices in a .safetensors\n"
      "sidecar next to it). Prints one JSON line: steps, rule_counts, nodes_before/after,\n"
      "layers, state_dim, dense_params, nonzero_params, state_widths, seconds. Progress goes\n"
      "to stderr when it is a terminal or with --progress; Ctrl-C stops cleanly (exit 130,\n"
      "no files written). The target options (below --target) are checked with --target and\n"
      "recorded for lsrl export. --precision fits the big constants of the program's sugar\n"
      "(step scales, conditionals' lambda) to the input domain, proving the outputs there\n"
      "unchanged, so that the weights answer right in float64 or fp32 (docs/precision.md);\n"
      "the domain and every change are recorded in the model for lsrl export.",
      {{"backend", "exact|float64", "arithmetic of the compile (default exact)"},
       {"target", "ARCH", "check that the model builds for ARCH and record it for lsrl export"},
       {"no-optimize", "", "the plain paper algorithm: no size optimisations"},
       {"history", "HIST.json",
        "also save the step history (replayable at any step), written as the compile goes"},
       {"history-limit", "SIZE",
        "stop when the history passes SIZE, e.g. 8G (default 2G: unoptimised compiles keep "
        "every intermediate matrix)"},
       {"progress", "", "print progress to stderr even when it is not a terminal"},
       {"o", "MODEL.json", "output model file (written atomically)"}},
      1,
      1};
  const std::vector<OptionSpec> precisionSpecs = precisionOptionSpecs();
  spec.options.insert(spec.options.end(), precisionSpecs.begin(), precisionSpecs.end());
  const std::vector<OptionSpec> targetSpecs = targetOptionSpecs();
  spec.options.insert(spec.options.end(), targetSpecs.begin(), targetSpecs.end());
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("o")) throw Error("missing -o MODEL.json (where to write the compiled model)");
  const std::string programPath = args->positional()[0];
  const std::string modelPath = args->get("o");
  const std::string historyPath = args->get("history");
  if (args->has("history") && historyPath == modelPath)
    throw Error("--history and -o name the same file \"" + modelPath + "\"");
  std::string target;
  if (args->has("target")) {
    target = args->get("target");
    if (!targetFromName(target))
      throw Error("--target: unknown architecture \"" + target + "\"; expected one of " +
                  targetNames());
  }
  nlohmann::json programMetadata;
  Graph program = whileBuilding("loading " + quotePath(programPath),
                                [&] { return loadProgramFile(programPath, &programMetadata); });
  PrecisionRequest precision = precisionRequest(*args, programMetadata);
  TargetOptionValues targetValues = targetOptionValues(*args);
  if (precision.fits())  // the box and horizon were (also) for the precision pass
    dropDomainWhereUnread(targetFromName(target), targetValues);
  if (target.empty() && !targetValues.empty())
    throw Error("--" + targetValues.begin()->first +
                " needs --target ARCH (it is a target option)");
  const TargetOptions targetOptions =
      target.empty() ? TargetOptions{} : parseTargetOptions(*targetFromName(target), targetValues);

  const ModelSource source{programName(programPath, programMetadata), graphHash(program)};
  std::string keptNote;
  const nlohmann::json precisionRecord = fitForPrecision(program, precision, &keptNote);
  if (!keptNote.empty()) std::cerr << "lsrl compile: note: " << keptNote << "\n";

  CompileOptions options;
  options.backend = parseBackend(args->get("backend", "exact"));
  options.optimize = !args->has("no-optimize");
  checkOutputPath(modelPath);  // before the compile, not after it
  if (args->has("history-limit") && !args->has("history"))
    throw Error("--history-limit needs --history HIST.json");
  // The history goes to disk as the compile makes it (memory stays that of the compile);
  // its writer refuses an unwritable path before the compile starts.
  std::optional<HistoryFileWriter> history;
  if (args->has("history")) {
    HistoryWriteOptions historyOptions;
    historyOptions.source = {source.name, source.hash};
    if (args->has("history-limit"))
      historyOptions.limitBytes = parseByteSize(args->get("history-limit"), "--history-limit");
    historyOptions.limitHint = std::string("; raise it with --history-limit (e.g. 8G)") +
                               (options.optimize ? "" : ", or compile without --no-optimize");
    history.emplace(historyPath, options.backend, program.conductor(), std::move(historyOptions));
    options.historySink = &*history;
  }

  const SigintScope sigint;
  CompileResult result;
  bool historyWritten = false;
  try {
    ProgressPrinter printer("lsrl compile", ProgressPrinter::wanted(args->has("progress")));
    options.progress = [&printer, &history](long long steps) {
      if (SigintScope::interrupted()) return false;
      printer.update([steps, &history] {
        return std::to_string(steps) + " steps" +
               (history ? ", history " + withThousands(history->bytesSoFar() >> 20) + " MiB" : "");
      });
      return true;
    };
    // With --target, the target is built too (no tensors): it refuses e.g. Multi in
    // linear-rnn, or hawk without a horizon it needs.
    WeightsOptions weights;
    weights.compile = options;
    weights.compileWhen = CompileWhen::Always;
    weights.last = target.empty() ? WeightsStage::Compile : WeightsStage::Target;
    if (!target.empty()) weights.target = targetFromName(target);
    weights.targetOptions = targetOptions;
    weights.onStage = [](WeightsStage finished) {
      stopIfInterrupted(finished == WeightsStage::Compile ? "after the compile"
                                                          : "while building the target");
    };
    result = whileBuilding("compiling " + quotePath(programPath), [&] {
      return std::move(compileToWeightsFromCli(program, weights, targetValues).compile);
    });
    if (history) {
      history->finish(result.steps);
      historyWritten = true;
    }
    stopIfInterrupted("before saving the model");
    nlohmann::json compiled = compiledMetadata(result, options, source, target);
    if (!target.empty()) compiled["target_options"] = targetOptionValuesToJson(targetValues);
    compiled["precision"] = precisionRecord;
    saveModelFile(modelPath, result.path, compiled);
  } catch (const Cancelled& e) {
    if (historyWritten) removeWithSidecar(historyPath);  // useless without its model
    std::cerr << "lsrl compile: interrupted (" << e.what() << "); no files written\n";
    return 130;
  } catch (...) {
    if (historyWritten) removeWithSidecar(historyPath);
    throw;
  }

  const GraphSize size = graphSize(result.path);
  nlohmann::ordered_json line;
  line["backend"] = std::string(backendName(result.backend));
  line["optimize"] = options.optimize;
  line["precision"] = std::string(precisionName(precision.precision));
  if (precision.fits()) {
    line["constants_fitted"] = precisionRecord["changes"].size();
    line["exact_on"] = precisionRecord["exact_on"];
    line["certificate"] = precisionRecord["certificate"]["summary"];
  }
  line["steps"] = result.stepCount;
  line["rule_counts"] = result.ruleCounts;
  line["nodes_before"] = result.nodesBefore;
  line["nodes_after"] = result.nodesAfter;
  line["layers"] = size.layers;
  line["state_dim"] = size.stateDim;
  line["dense_params"] = size.denseParams;
  line["nonzero_params"] = size.nonZeroParams;
  line["state_widths"] = size.stateWidths;
  line["seconds"] = result.seconds;
  line["model"] = modelPath;
  out << line.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
