// lsrl run FILE.json --input IN.json [--exact] [--trace TRACE.json] [--threads N]
#include <nlohmann/json.hpp>
#include <numeric>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/runnable_file.h"
#include "core/io/graph_file.h"
#include "core/io/sequence_file.h"
#include "core/io/trace_file.h"
#include "core/run/executor.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

// Runs every sequence of the batch in one numeric mode; returns the outputs as JSON
// rows and fills `traces` (one per sequence) when asked.
template <class V>
nlohmann::json runAll(const std::shared_ptr<const Plan>& plan,
                      const std::vector<std::vector<std::vector<V>>>& sequences, int threads,
                      std::vector<Trace<V>>* traces) {
  std::vector<std::vector<std::vector<V>>> outputs;
  if (traces != nullptr) {
    Executor<V> ex(plan);
    traces->resize(sequences.size());
    for (size_t i = 0; i < sequences.size(); ++i) {
      outputs.push_back(ex.run(sequences[i], &(*traces)[i]));
    }
  } else {
    outputs = runBatch<V>(plan, sequences, BatchOptions{threads});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& out : outputs) {
    if constexpr (std::is_same_v<V, double>) {
      rows.push_back(doubleRowsToJson(out));
    } else {
      rows.push_back(exactRowsToJson(out));
    }
  }
  return rows;
}

}  // namespace

int cmdRun(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl run FILE.json --input IN.json [--exact] [--trace TRACE.json] [--threads N]",
      "Runs a program on token sequences with ForEach semantics (states reset before each\n"
      "sequence) and prints {\"outputs\": [[...], ...]}, one row per token, or\n"
      "{\"batch_outputs\": [...]} for an input in batch form. Float64 by default; --exact\n"
      "computes in the program's number field with no rounding and prints exact values\n"
      "(integers as JSON numbers, others as strings such as \"1/3\" or \"cos(pi/6)\").\n"
      "FILE.json is a program or a compiled model (lsrl compile); --exact needs a model\n"
      "compiled with --backend exact.",
      {{"input", "IN.json", "token sequences: {\"tokens\": [[...]...]} or {\"batch\": [...]}"},
       {"exact", "", "compute exactly instead of in float64"},
       {"trace", "TRACE.json", "also write every node's value at every step"},
       {"threads", "N", "threads for a batch (default: all cores)"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("input")) throw Error("missing --input IN.json (the token sequences to run)");
  const bool exact = args->has("exact");
  int threads = 0;
  if (args->has("threads")) {
    threads = parseIntValue(args->get("threads"), "--threads", 1, 1024);
  }

  const Graph graph = loadRunnableGraph(args->positional()[0], exact);
  const SequenceBatch batch = loadSequenceFile(args->get("input"));
  long long inputConductor = 4;
  for (const ExactSequence& s : batch.sequences)
    for (const ExactVector& row : s)
      for (const Exact& x : row) inputConductor = std::lcm(inputConductor, x.conductor());
  PlanOptions options;
  options.exact = exact;
  options.extraConductor = inputConductor;
  const auto plan = Plan::make(graph, options);

  const bool wantTrace = args->has("trace");
  nlohmann::json rows;
  std::string traceText;
  if (exact) {
    std::vector<ExactTrace> traces;
    rows = runAll<Exact>(plan, batch.sequences, threads, wantTrace ? &traces : nullptr);
    if (wantTrace) traceText = tracesToJson(graph, traces).dump();
  } else {
    std::vector<FloatSequence> seqs;
    for (const ExactSequence& s : batch.sequences) seqs.push_back(floatTokens(s));
    std::vector<FloatTrace> traces;
    rows = runAll<double>(plan, seqs, threads, wantTrace ? &traces : nullptr);
    if (wantTrace) traceText = tracesToJson(graph, traces).dump();
  }
  if (wantTrace) writeFileAtomically(args->get("trace"), traceText + "\n");

  nlohmann::ordered_json result;
  if (batch.isBatch) {
    result["batch_outputs"] = rows;
  } else {
    result["outputs"] = rows.at(0);
  }
  out << result.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
