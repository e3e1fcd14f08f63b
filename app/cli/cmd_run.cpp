// lsrl run FILE --input IN.json [--exact | --backend B [--precision P]] [--trace TRACE.json]
//          [--threads N] [--progress]
// lsrl run FILE --input IN.npy|IN.safetensors -o OUT.npy|OUT.safetensors [...] (array_run.h)
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/array_run.h"
#include "app/cli/commands.h"
#include "app/cli/fp32_backends.h"
#include "app/cli/nonfinite_watch.h"
#include "app/cli/progress_printer.h"
#include "app/cli/runnable_file.h"
#include "app/cli/streamed_run.h"
#include "core/executor/executor.h"
#include "core/executor/trace_file.h"
#include "core/float_batch/target_program.h"
#include "core/io/array_file.h"
#include "core/io/graph_file.h"
#include "core/io/sequence_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/out_of_memory.h"
#include "core/util/quote_input.h"
#include "core/util/thousands.h"

namespace lsrl::cli {

namespace {

// The arithmetic of the batch backends (--precision): fp32, or fp64 on the Vulkan device.
// Returns whether it is fp64; throws lsrl::Error for a value or a backend that does not fit.
// ("--precision" of lsrl compile names what the constants are fitted for; here it names
// the arithmetic that runs them, and "float64" is accepted for fp64 alike.)
bool wantsFp64(const Args& args, const std::string& backend, bool weights) {
  if (!args.has("precision")) return false;
  const std::string p = args.get("precision");
  if (p != "fp32" && p != "fp64" && p != "float64")
    throw Error("unknown --precision \"" + p + "\" (fp32, fp64)");
  const bool fp64 = p != "fp32";
  if (backend != "cpu32" && backend != "vulkan")
    throw Error("--precision " + p + " applies to the batch backends (--backend vulkan" +
                (fp64 ? "" : " or cpu32") + "); --backend " + backend + " computes in " +
                (backend == "exact" ? "exact arithmetic" : "float64 on the CPU"));
  if (fp64 && backend != "vulkan")
    throw Error("--precision " + p +
                " needs --backend vulkan: the CPU batch runner is fp32 (--backend float64 runs "
                "the float64 executor on the CPU)");
  if (fp64 && weights)
    throw Error("--precision " + p +
                " runs compiled models (path graphs) only: a target architecture's weights run "
                "in fp32 (--precision fp32) or in float64 on the CPU (--backend float64)");
  return fp64;
}

// "running 3,000,000 tokens in 1 sequence on cpu32": what a whole-batch run holds, for its
// out-of-memory message.
std::string runningText(const SequenceBatch& batch, const std::string& backend) {
  size_t tokens = 0;
  for (const ExactSequence& s : batch.sequences) tokens += s.size();
  const size_t n = batch.sequences.size();
  return "running " + withThousands(tokens) + " tokens in " + withThousands(n) +
         (n == 1 ? " sequence on " : " sequences on ") + backend;
}

// Runs every sequence with one executor, recording each node's value at each step;
// returns the outputs as JSON rows and fills `traces` (one per sequence). The runs
// without --trace are streamed (streamed_run.h). Float64 runs offer their first
// non-finite value to `watch`.
template <class V>
nlohmann::json runTraced(const std::shared_ptr<const Plan>& plan,
                         const std::vector<std::vector<std::vector<V>>>& sequences,
                         std::vector<Trace<V>>& traces, NonFiniteWatch* watch) {
  Executor<V> ex(plan);
  ex.watchNonFinite(watch != nullptr);
  traces.resize(sequences.size());
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < sequences.size(); ++i) {
    const auto out = ex.run(sequences[i], &traces[i]);
    if (watch != nullptr && ex.nonFiniteSite()) {
      NonFiniteSite site = *ex.nonFiniteSite();
      site.sequence = i;
      watch->offer(std::move(site));
    }
    if constexpr (std::is_same_v<V, double>) {
      rows.push_back(doubleRowsToJson(out));
    } else {
      rows.push_back(exactRowsToJson(out));
    }
  }
  return rows;
}

// The float64 or exact DAG executor over every sequence (the plan built once), writing
// the traces to `tracePath` unless the watch refuses the run.
nlohmann::json runWithTrace(const Graph& graph, bool compiled, const SequenceBatch& batch,
                            bool exact, const std::string& tracePath, NonFiniteWatch* watch) {
  long long inputConductor = 4;
  for (const ExactSequence& s : batch.sequences)
    for (const ExactVector& row : s)
      for (const Exact& x : row) inputConductor = std::lcm(inputConductor, x.conductor());
  PlanOptions options;
  options.exact = exact;
  options.extraConductor = inputConductor;
  options.allowHugeSparse = compiled;  // validated by loadRunnableGraph (requireValidPath)
  const auto plan = Plan::make(graph, options);

  nlohmann::json rows;
  std::string traceText;
  if (exact) {
    std::vector<ExactTrace> traces;
    rows = runTraced<Exact>(plan, batch.sequences, traces, nullptr);
    traceText = tracesToJson(graph, traces).dump();
  } else {
    std::vector<FloatSequence> seqs;
    for (const ExactSequence& s : batch.sequences) seqs.push_back(floatTokens(s));
    std::vector<FloatTrace> traces;
    rows = runTraced<double>(plan, seqs, traces, watch);
    watch->refuseIfFound();
    traceText = tracesToJson(graph, traces).dump();
  }
  writeFileAtomically(tracePath, traceText + "\n");
  return rows;
}

}  // namespace

int cmdRun(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl run FILE --input IN.json [--exact | --backend B [--precision P]]\n"
      "         [--trace TRACE.json] [--threads N] [--progress]\n"
      "lsrl run FILE --input IN.npy|IN.safetensors -o OUT.npy|OUT.safetensors [--backend B ...]",
      "Runs a program on token sequences with ForEach semantics (states reset before each\n"
      "sequence) and prints {\"outputs\": [[...], ...]}, one row per token, or\n"
      "{\"batch_outputs\": [...]} for an input in batch form. Float64 by default; --exact\n"
      "computes in the program's number field with no rounding and prints exact values\n"
      "(integers as JSON numbers, others as strings such as \"1/3\" or \"cos(pi/6)\").\n"
      "FILE is a program or a compiled model (lsrl compile); --exact needs a model compiled\n"
      "with --backend exact. FILE may also be a target architecture's weights (lsrl export\n"
      "--target ARCH: .safetensors or .npz), run in float64 or fp32. --backend cpu32 / vulkan\n"
      "run a compiled model or weights in fp32 in batch, on the CPU or on the Vulkan device\n"
      "(lsrl devices; fails with the reason when there is none); --backend vulkan\n"
      "--precision fp64 runs a compiled model in fp64 on the device instead (a device with\n"
      "float64 in shaders; lsrl devices says). On float64 and exact the rows are written as\n"
      "they are computed, with progress on stderr when it is a terminal or with --progress.\n"
      "Binary batches: IN.npy ('<f4' or '<f8', C order) or IN.safetensors (one F32/F64\n"
      "tensor, or the one named \"tokens\" or \"input\") holds a B x T x C array, B sequences\n"
      "of T tokens of width C (a 2-d T x C array is one sequence); the outputs go to -o as a\n"
      "B x T x D array (T x D for 2-d input; tensor \"output\"), F32 for fp32 runs and F64\n"
      "otherwise; --exact computes exactly from the floats' exact values and rounds each\n"
      "output once to float64. -o is required there and refused for JSON input. Such a batch:\n"
      "lsrl prompt tok2tok --random 4 --count 1000000 -o IN.npy (27 tokens each for L=3).",
      {{"input", "IN.json",
        "token sequences: {\"tokens\": [[...]...]} or {\"batch\": [...]}, or a binary batch "
        "(.npy, .safetensors)"},
       {"o", "OUT.npy", "binary input's outputs: .npy or .safetensors (written atomically)"},
       {"exact", "", "compute exactly instead of in float64 (= --backend exact)"},
       {"backend", "B", "float64 (default), exact, cpu32 or vulkan"},
       {"precision", "P", "fp32 (default) or fp64 = float64 (vulkan, compiled models)"},
       {"trace", "TRACE.json", "also write every node's value at every step"},
       {"allow-nonfinite", "",
        "print the outputs of a float run that overflows to infinity or NaN (refused by "
        "default), with a warning naming where it started"},
       {"threads", "N", "threads for a batch (default: all cores)"},
       {"progress", "", "print progress to stderr even when it is not a terminal"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("input")) throw Error("missing --input IN.json (the token sequences to run)");
  const std::string backend =
      args->has("backend") ? args->get("backend") : (args->has("exact") ? "exact" : "float64");
  if (backend != "float64" && backend != "exact" && backend != "cpu32" && backend != "vulkan")
    throw Error("unknown --backend \"" + backend + "\" (float64, exact, cpu32, vulkan)");
  if (args->has("exact") && backend != "exact")
    throw Error("--exact contradicts --backend " + backend);
  const bool exact = backend == "exact";
  const bool batched = backend == "cpu32" || backend == "vulkan";  // fp32 or fp64
  if (batched && args->has("trace"))
    throw Error("--trace needs --backend float64 or exact (the batch runners keep no node values)");
  int threads = 0;
  if (args->has("threads")) {
    threads = parseIntValue(args->get("threads"), "--threads", 1, 1024);
  }

  const std::string& file = args->positional()[0];
  const bool fp64 = wantsFp64(*args, backend, isWeightFile(file));
  if (exact && args->has("allow-nonfinite"))
    throw Error("--allow-nonfinite is for the float backends: exact values are always finite");
  const std::string& input = args->get("input");
  if (args->has("o") && !arrayFormatOf(input))
    throw Error(
        "-o writes the outputs of a binary batch (--input IN.npy or IN.safetensors); "
        "the outputs of " +
        input + " are printed as JSON");
  if (arrayFormatOf(input)) {
    if (!args->has("o"))
      throw Error(input +
                  " is a binary batch: its outputs are written as an array too, give -o "
                  "OUT.npy or -o OUT.safetensors");
    if (!arrayFormatOf(args->get("o")))
      throw Error("-o " + args->get("o") +
                  ": binary outputs are written to a .npy or .safetensors file");
    if (args->has("trace"))
      throw Error("--trace writes JSON traces of JSON inputs; a binary batch (" + input +
                  ") runs without one");
    ArrayRunOptions options;
    options.backend = backend;
    options.fp64 = fp64;
    options.threads = threads;
    options.progress = ProgressPrinter::wanted(args->has("progress"));
    options.allowNonFinite = args->has("allow-nonfinite");
    out << runArrayFile(file, input, args->get("o"), options).dump() << "\n";
    return 0;
  }
  if (!batched && !args->has("trace") && !isWeightFile(file)) {
    // Programs and compiled models on the CPU executors: streamed, rows written as they
    // are computed (the whole-batch path below holds every input and output).
    const SequenceFileShape shape = checkStreamedInput(args->get("input"), exact);
    StreamedRunOptions options;
    options.exact = exact;
    options.threads = threads;
    options.progress = ProgressPrinter::wanted(args->has("progress"));
    const Graph graph = loadRunnableGraph(file, exact, Validation::Refuse, &options.compiled);
    NonFiniteWatch watch(args->has("allow-nonfinite"), "float64", shape.isBatch, &graph);
    if (!exact) options.watch = &watch;
    runStreamed(graph, args->get("input"), shape, options, out);
    watch.finish(std::cerr);
    return 0;
  }
  const SequenceBatch batch = loadSequenceFile(args->get("input"));
  const bool weights = isWeightFile(file);
  if (weights && exact)
    throw Error(file +
                " holds a target architecture's float64 weights: --backend exact needs "
                "the compiled model (lsrl compile --backend exact)");
  if (weights && args->has("trace"))
    throw Error("--trace needs a program or a compiled model (.json), not weights");
  bool compiled = false;
  const std::string loading = "loading " + quotePath(file);
  const std::optional<Graph> graph =
      weights ? std::nullopt : std::optional<Graph>(whileBuilding(loading, [&] {
        return loadRunnableGraph(file, exact, Validation::Refuse, &compiled);
      }));
  // The graph names the watch's nodes (and replays fp64 runs).
  NonFiniteWatch watch(args->has("allow-nonfinite"),
                       !batched ? "float64" : (fp64 ? "fp64" : "fp32"), batch.isBatch,
                       graph ? &*graph : nullptr);
  const Fp32Backend fp32Backend = backend == "vulkan" ? Fp32Backend::Vulkan : Fp32Backend::Cpu;
  nlohmann::json rows = nlohmann::json::array();
  whileBuilding(runningText(batch, backend), [&] {
    if (weights) {
      const FloatTargetModel model =
          whileBuilding(loading, [&] { return loadTargetWeights(file); });
      if (batched) {
        for (const auto& o : runFp32(float_batch::layerProgramFromTarget(model), batch.sequences,
                                     fp32Backend, nullptr, &watch))
          rows.push_back(doubleRowsToJson(o));
      } else {
        for (size_t i = 0; i < batch.sequences.size(); ++i) {
          const auto outputs = model.run(floatTokens(batch.sequences[i]));
          watch.offerOutputs(i, outputs);
          rows.push_back(doubleRowsToJson(outputs));
        }
      }
    } else if (fp64) {
      for (const auto& o : runVulkanFp64(float_batch::layerProgramFromPath<double>(*graph),
                                         batch.sequences, nullptr, &watch))
        rows.push_back(doubleRowsToJson(o));
    } else if (batched) {
      for (const auto& o : runFp32(float_batch::layerProgramFromPath(*graph), batch.sequences,
                                   fp32Backend, nullptr, &watch))
        rows.push_back(doubleRowsToJson(o));
    } else {  // --trace (the runs without it were streamed above)
      rows = runWithTrace(*graph, compiled, batch, exact, args->get("trace"),
                          exact ? nullptr : &watch);
    }
  });
  watch.finish(std::cerr);
  nlohmann::ordered_json result;
  if (batched) {
    result["backend"] = backend;
    result["precision"] = fp64 ? "fp64" : "fp32";
  }
  if (batch.isBatch) {
    result["batch_outputs"] = rows;
  } else {
    result["outputs"] = rows.at(0);
  }
  out << result.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
