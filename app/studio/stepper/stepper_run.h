// What the token stepper runs, Qt-free: the open program (exact or float64) or its
// compiled model (compiled exact or float64, optimised or not; the path graph itself,
// traced node by node, or a target architecture built from it, outputs only), or a
// weights file (exported or fine-tuned, opened_weights.h; float64, outputs only), on one
// token sequence, with every traced value kept so that any step can be shown again.
//
//   EngineSpec spec = EngineSpec::compiled(/*exact=*/false, /*optimize=*/false);
//   StepperRun run = runEngine(program, spec, tokens);
//   run.valueText(node, t);   // "[1, 0, 1/3]" (exact) or "[1, 0, 0.333333]"
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/studio/common/value_text.h"  // formatExact, formatDouble
#include "core/executor/executor.h"
#include "core/graph/graph.h"
#include "core/targets/targets.h"

namespace lsrl::studio {

enum class RunSource { Program, Compiled, WeightsFile };

struct EngineSpec {
  RunSource source = RunSource::Program;
  bool exact = true;     // numeric mode; for Compiled also the compile backend
  bool optimize = true;  // Compiled only: the compiler's size optimisations
  // Compiled only: nullopt runs the compiled path graph (every node traced); a target
  // architecture is built from the path and run for its outputs only.
  std::optional<Target> target;
  // Compiled, not exact: run in fp32 on the CPU batch runner (core/float_batch; outputs only)
  // instead of float64.
  bool fp32 = false;
  // Compiled only: the program's constants fitted first (docs/precision.md) for the run's
  // arithmetic, on the domain of the stepper's tokens (their box, whole numbers when they
  // all are, their length).
  bool fitted = false;
  // WeightsFile only: the safetensors or .npz file run (in float64, for its outputs).
  std::string weightsPath = {};

  static EngineSpec program(bool exact) { return {RunSource::Program, exact, true, std::nullopt}; }
  static EngineSpec compiled(bool exact, bool optimize = true,
                             std::optional<Target> target = std::nullopt) {
    return {RunSource::Compiled, exact, optimize, target};
  }
  static EngineSpec compiledFp32(bool fitted, std::optional<Target> target = std::nullopt) {
    return {RunSource::Compiled, false, true, target, true, fitted};
  }
  static EngineSpec weightsFile(std::string path) {
    return {RunSource::WeightsFile, false, true, std::nullopt, false, false, std::move(path)};
  }

  // "program exact", "compiled float64 (no optimise)", "compiled exact → lstm",
  // "compiled fp32, fitted", "weights ft.safetensors".
  std::string label() const;
  friend bool operator==(const EngineSpec&, const EngineSpec&) = default;
};

struct StepperRun {
  EngineSpec spec;
  Graph graph;           // what ran: the program, or the compiled path (also for targets)
  ExactSequence tokens;  // the input, one row per step
  std::variant<std::monostate, FloatTrace, ExactTrace> trace;  // monostate: targets
  // One row per step: the output after token t (0-based).
  std::vector<std::vector<Exact>> exactOutputs;   // exact runs only
  std::vector<std::vector<double>> floatOutputs;  // every run (roundings of exact ones)
  double compileSeconds = 0;
  double runSeconds = 0;
  double labelSeconds = 0;  // compiled runs: tracePathProvenance
  std::string fittedTo;     // fitted runs: the domain ("inputs in [0, 9] ..., t ≤ 33")
  std::string fileKind;     // weights runs: "fine-tuned" or "exported", as the file says
  // Something to know about the result that is no error: a weights file built from another
  // program than the one open. Empty when there is nothing.
  std::string warning;
  // Compiled runs: the program, and what each path component carries in its terms
  // (core/compiler/provenance.h): a label per component ("query[1]"; empty where unknown)
  // and, per program node, the path node and component holding each of its components
  // ((kNoNode, -1) where none does).
  std::shared_ptr<const Graph> program;
  std::vector<std::vector<std::string>> carriedLabels;
  std::map<NodeId, std::vector<std::pair<NodeId, int>>> carriers;

  // spec.label() and, for a weights run, what the file is: "weights ft.safetensors
  // (fine-tuned)".
  std::string label() const;
  int steps() const { return static_cast<int>(floatOutputs.size()); }
  bool hasNodeTrace() const { return trace.index() != 0; }
  bool isExact() const { return spec.exact; }
  // Traced nodes (topological order); empty for a target's outputs-only run.
  std::vector<NodeId> tracedNodes() const;
  bool traces(NodeId id) const;
  // A traced node's value after token t, as doubles (exact values rounded) and as text
  // (exact values in the scalar grammar, doubles with 6 significant digits).
  std::vector<double> value(NodeId id, int t) const;
  std::string valueText(NodeId id, int t) const;
  std::string outputText(int t) const;

  // A traced node's component as a person reads it: the program value a compiled path's
  // component carries ("query[1]"), else the node's name (or #id) and the index.
  std::string componentLabel(NodeId id, int c) const;
  // The program's nodes, topological order (for a program run: its traced nodes).
  std::vector<NodeId> programOrder() const;
  const Graph& programGraph() const { return program ? *program : graph; }
  // Where this run holds program node p's component c (a traced node and component).
  std::optional<std::pair<NodeId, int>> carrier(NodeId p, int c) const;
  // True when every component of program node p is held, so that its value can be shown.
  bool holdsProgramNode(NodeId p) const;
  std::vector<double> programValue(NodeId p, int t) const;
  std::string programValueText(NodeId p, int t) const;
};

struct RunProgress {
  std::function<void(int done, int total, const std::string& what)> report;
  const std::atomic<bool>* cancel = nullptr;  // set: throws lsrl::Cancelled
};

// Compiles (Compiled) or reads the weights file (WeightsFile) and runs `tokens` from a
// reset. A weights file whose source is none of `programHashes` (opened_weights.h; empty:
// the program's graphHash) runs with a warning. Throws lsrl::Error (bad tokens, a program
// that does not validate or compile, a target that refuses the path, a weights file that
// does not load or whose d_in is not the program's input width).
StepperRun runEngine(const Graph& program, const EngineSpec& spec, const ExactSequence& tokens,
                     const RunProgress& progress = {},
                     const std::vector<std::string>& programHashes = {});

}  // namespace lsrl::studio
