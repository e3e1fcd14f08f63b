// The LSRL compiler (docs/spec/compiler.md): folds and debranches a program's DAG, one recorded
// step at a time, until it is a path of Linear / ReLU / LinState / Multi nodes after the Input, in
// exact arithmetic (the program's field Q(cos 2π/N)) or in float64.
//
//   CompileResult r = compile(program, {.backend = Backend::Exact});
//   Executor<Exact> ex(r.path);   // the same outputs as the program
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/ir.h"
#include "core/graph/graph.h"
#include "core/util/error.h"

namespace lsrl {

enum class Backend { Exact, Float64 };
std::string_view backendName(Backend b);  // "exact", "float64"

class HistorySink;

struct CompileOptions {
  Backend backend = Backend::Exact;
  bool recordHistory = true;
  // Rule names (as in CompileResult::ruleCounts, e.g. "5B stack Linears") never to fire;
  // for experiments and tests. A branch that only a disabled rule handles is an error.
  std::vector<std::string> disabledRules;
  long long maxSteps = 10'000'000;  // fold and debranch steps together
  // Stop after this many steps (fold and debranch) and return the graph as it is then
  // (not a path); -1: run to the end.
  long long stopAfterSteps = -1;
  // Keep every node payload ever created so that CompileResult::history can rebuild the
  // graph at any step (needs recordHistory). Off by default: for the plain paper
  // algorithm on tok2tok the intermediate matrices add up to gigabytes.
  bool replayableHistory = false;
  // Receives the history as it is made instead (needs recordHistory): every payload is
  // handed over when its node is made and not kept, so a history far bigger than memory
  // can be written out (HistoryFileWriter, core/compiler/history_file.h).
  HistorySink* historySink = nullptr;
  // Exactness-preserving size optimisations (dead dimensions, duplicate rows, zero
  // rows/columns, identity layers), recorded as steps like the rules; off reproduces the
  // plain paper algorithm (`--no-optimize`).
  bool optimize = true;
  // Only the fold rules, to their fixed point: no debranching and no size optimisation,
  // so the result keeps the program's branches (the paper's ForEach.fold_same_type).
  bool foldOnly = false;
  // Called every few hundred steps with the steps so far; returning false stops the
  // compile, which then throws lsrl::Cancelled (core/util/error.h). Runs on the compiling
  // thread: keep it cheap (e.g. check an atomic flag, print a line now and then).
  std::function<bool(long long steps)> progress;
};

// The graph at any step of a finished compile.
class CompileHistory {
 public:
  virtual ~CompileHistory() = default;
  virtual size_t stepCount() const = 0;
  // The graph after `step` steps (0: the program as the compiler took it, its program
  // nodes only; stepCount(): the final path). Node ids are renumbered in Kahn order.
  virtual Graph graphAt(size_t step) const = 0;

  // Raw access for saving (history_file.cpp), in the compiler's IR ids rather than
  // graphAt's Kahn numbering. The defaults throw: a history that cannot be saved.
  // The number of IR ids (every id a step or the initial graph refers to is below it).
  virtual size_t idLimit() const { throw notSaveable(); }
  // The graph the compile started from: every node alive at step 0 with its inputs
  // (IR ids, ascending), and its output node.
  virtual std::vector<std::pair<NodeId, std::vector<NodeId>>> initialInputs() const {
    throw notSaveable();
  }
  virtual NodeId initialOutput() const { throw notSaveable(); }
  // The payload of IR node `id` (op, dim, name, slice, matrices and vectors; no inputs),
  // as graphAt shows it at any step where it is alive; nullopt for an id that never held
  // a node. Costs only the conversion of that one node.
  virtual std::optional<Node> payload(NodeId /*id*/) const { throw notSaveable(); }

 private:
  static Error notSaveable() { return Error("this compile history exposes no node payloads"); }
};

// See CompileOptions::historySink. The step log itself comes in CompileResult::steps.
class HistorySink {
 public:
  virtual ~HistorySink() = default;
  // The graph the compile starts from, as CompileHistory::initialInputs / initialOutput;
  // called once, after the payloads of its nodes.
  virtual void start(std::vector<std::pair<NodeId, std::vector<NodeId>>> inputs, NodeId output) = 0;
  // Each node's payload as CompileHistory::payload gives it, when the node is made: the
  // program's nodes first, then those the steps add. A throw stops the compile.
  virtual void payload(const Node& node) = 0;
};

struct CompileResult {
  Backend backend = Backend::Exact;
  Graph path;                         // Input followed by a chain of primitives
  std::vector<NodeId> pathIds;        // path node k is IR node pathIds[k]
  std::vector<compiler::Step> steps;  // empty unless recordHistory
  std::map<std::string, long long> ruleCounts;
  std::map<std::string, double> ruleSeconds;  // time in each rule's rewrites
  long long stepCount = 0;                    // fold and debranch steps
  long long debranchSteps = 0;
  size_t nodesBefore = 0;                         // program nodes
  size_t nodesAfter = 0;                          // path nodes, the Input included
  double seconds = 0;                             // compile proper (not the conversions)
  bool stopped = false;                           // stopAfterSteps cut the compile short
  std::shared_ptr<const CompileHistory> history;  // with replayableHistory
};

CompileResult compile(const Graph& program, const CompileOptions& options = {});

// A compiler rule as it describes itself: its id (what steps record, what
// CompileOptions::disabledRules takes), what it does in one sentence, its kind ("fold",
// "debranch" or "optimize") and its benefit (of the matching rules of a kind, the highest
// fires).
struct CompileRule {
  std::string id;
  std::string explanation;
  std::string kind;
  int benefit = 0;
};

// Every rule: folds first, then debranch cases in the order they are tried, then the size
// optimisation.
std::vector<CompileRule> compileRules();
// The rule with this id, if there is one.
std::optional<CompileRule> compileRule(std::string_view id);
// compileRules()' ids.
std::vector<std::string> compileRuleNames();

// Sizes of a path (or any) graph, as docs/compiler.md defines them.
struct GraphSize {
  int layers = 0;                // non-Input nodes
  long long stateDim = 0;        // Σ widths of LinState nodes
  long long denseParams = 0;     // Σ rows×cols of Linear A, b and LinState A, B, bias
  long long nonZeroParams = 0;   // stored non-zeros of those
  std::vector<int> stateWidths;  // LinState widths in order
};
GraphSize graphSize(const Graph& g);

// True when every node of the program has at most one successor.
bool isPath(const Graph& g);

}  // namespace lsrl
