#include "core/compile/compiler.h"

#include <chrono>
#include <optional>

#include "core/compile/convert.h"
#include "core/compile/driver.h"
#include "core/compile/history.h"
#include "core/graph/checks.h"

namespace lsrl {

std::string_view backendName(Backend b) { return b == Backend::Exact ? "exact" : "float64"; }

namespace {

// Hands the starting graph to the sink, then every payload as its node is made.
template <class S>
void streamHistory(compiler::CGraph<S>& g, HistorySink& sink) {
  const compiler::Scalars<S>& sc = g.scalars();
  std::vector<std::pair<NodeId, std::vector<NodeId>>> inputs;
  for (NodeId id : g.aliveIds()) {
    sink.payload(compiler::payloadNode(id, g.node(id), sc));
    inputs.emplace_back(id, g.inputs(id));
  }
  sink.start(std::move(inputs), g.output());
  g.onAdd([&sink, &sc](NodeId id, const compiler::CNode<S>& c) {
    sink.payload(compiler::payloadNode(id, c, sc));
  });
}

template <class S>
CompileResult compileWith(const Graph& program, const CompileOptions& options,
                          const compiler::Scalars<S>& sc) {
  CompileResult result;
  result.backend = options.backend;
  const bool replay = options.replayableHistory && options.recordHistory;
  compiler::CGraph<S> g = compiler::fromGraph(program, sc, replay);
  result.nodesBefore = g.nodeCount();
  std::optional<compiler::CGraph<S>> initial;
  if (replay) initial.emplace(g);
  if (options.historySink != nullptr && options.recordHistory)
    streamHistory(g, *options.historySink);
  const auto t0 = std::chrono::steady_clock::now();
  compiler::Driver<S> driver(
      g, {options.recordHistory, options.disabledRules, options.maxSteps, options.stopAfterSteps,
          options.progress, options.optimize, options.foldOnly});
  compiler::DriverOutcome outcome = driver.run();
  const auto t1 = std::chrono::steady_clock::now();
  result.seconds = std::chrono::duration<double>(t1 - t0).count();
  result.steps = std::move(outcome.steps);
  result.ruleCounts = std::move(outcome.ruleCounts);
  result.ruleSeconds = std::move(outcome.ruleSeconds);
  result.stepCount = outcome.stepCount;
  result.debranchSteps = outcome.debranchSteps;
  result.stopped = outcome.stopped;
  if (replay) {
    result.history =
        std::make_shared<compiler::ReplayHistory<S>>(*initial, g.archive(), result.steps);
  }
  result.path = compiler::toGraph(g, &result.pathIds);
  result.nodesAfter = result.path.nodeCount();
  return result;
}

}  // namespace

CompileResult compile(const Graph& program, const CompileOptions& options) {
  requireValid(program, "compile");
  if (options.backend == Backend::Float64)
    return compileWith(program, options, compiler::Scalars<double>{});
  compiler::Scalars<compiler::ExactScalar> sc;
  sc.field = &CosField::get(program.conductor());
  return compileWith(program, options, sc);
}

std::vector<CompileRule> compileRules() {
  std::vector<CompileRule> out;
  auto add = [&](const compiler::RuleIdentity& r, const char* kind) {
    out.push_back({std::string(r.name()), std::string(r.explanation()), kind, r.benefit()});
  };
  for (const auto& r : compiler::foldRules<double>()) add(*r, "fold");
  for (const auto& r : compiler::debranchRules<double>()) add(*r, "debranch");
  out.push_back({std::string(compiler::kCompactRule), std::string(compiler::kCompactExplanation),
                 "optimize", 0});
  return out;
}

std::optional<CompileRule> compileRule(std::string_view id) {
  for (CompileRule& r : compileRules())
    if (r.id == id) return std::move(r);
  return std::nullopt;
}

std::vector<std::string> compileRuleNames() {
  std::vector<std::string> out;
  for (CompileRule& r : compileRules()) out.push_back(std::move(r.id));
  return out;
}

GraphSize graphSize(const Graph& g) {
  GraphSize s;
  for (NodeId id : g.programNodes()) {
    const Node& n = g.node(id);
    if (n.op == Op::Input) continue;
    ++s.layers;
    if (n.op == Op::Linear) {
      s.denseParams += static_cast<long long>(n.A.rows()) * n.A.cols() + n.dim;
      s.nonZeroParams += static_cast<long long>(n.A.nonZeros());
      for (const Exact& x : n.b) s.nonZeroParams += x.isZero() ? 0 : 1;
    } else if (n.op == Op::LinState) {
      s.stateDim += n.dim;
      s.stateWidths.push_back(n.dim);
      s.denseParams += static_cast<long long>(n.dim) * n.dim +
                       static_cast<long long>(n.B.rows()) * n.B.cols() + n.dim;
      s.nonZeroParams += static_cast<long long>(n.A.nonZeros() + n.B.nonZeros());
      for (const Exact& x : n.bias) s.nonZeroParams += x.isZero() ? 0 : 1;
    }
  }
  return s;
}

bool isPath(const Graph& g) {
  const auto succ = g.successors();
  for (NodeId id : g.programNodes()) {
    int count = 0;
    for (NodeId s : succ[static_cast<size_t>(id)]) {
      (void)s;
      ++count;
    }
    if (count > 1) return false;
  }
  return true;
}

}  // namespace lsrl
