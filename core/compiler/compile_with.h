// Internal to core/compiler: compile() for one scalar type S (double or ExactScalar).
// Each backend is instantiated in its own unit (compile_float64.cpp, compile_exact.cpp):
// the rule set instantiated for both in one unit was the slowest file of the build.
#pragma once

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/compiler/convert.h"
#include "core/compiler/driver.h"
#include "core/compiler/history.h"

namespace lsrl::compiler {

// Hands the starting graph to the sink, then every payload as its node is made.
template <class S>
void streamHistory(CGraph<S>& g, HistorySink& sink) {
  const Scalars<S>& sc = g.scalars();
  std::vector<std::pair<NodeId, std::vector<NodeId>>> inputs;
  for (NodeId id : g.aliveIds()) {
    sink.payload(payloadNode(id, g.node(id), sc));
    inputs.emplace_back(id, g.inputs(id));
  }
  sink.start(std::move(inputs), g.output());
  g.onAdd([&sink, &sc](NodeId id, const CNode<S>& c) { sink.payload(payloadNode(id, c, sc)); });
}

template <class S>
CompileResult compileWith(const Graph& program, const CompileOptions& options,
                          const Scalars<S>& sc) {
  CompileResult result;
  result.backend = options.backend;
  const bool replay = options.replayableHistory && options.recordHistory;
  CGraph<S> g = fromGraph(program, sc, replay);
  result.nodesBefore = g.nodeCount();
  std::optional<CGraph<S>> initial;
  if (replay) initial.emplace(g);
  if (options.historySink != nullptr && options.recordHistory)
    streamHistory(g, *options.historySink);
  const auto t0 = std::chrono::steady_clock::now();
  Driver<S> driver(
      g, {options.recordHistory, options.disabledRules, options.maxSteps, options.stopAfterSteps,
          options.progress, options.optimize, options.foldOnly});
  DriverOutcome outcome = driver.run();
  const auto t1 = std::chrono::steady_clock::now();
  result.seconds = std::chrono::duration<double>(t1 - t0).count();
  result.steps = std::move(outcome.steps);
  result.ruleCounts = std::move(outcome.ruleCounts);
  result.ruleSeconds = std::move(outcome.ruleSeconds);
  result.stepCount = outcome.stepCount;
  result.debranchSteps = outcome.debranchSteps;
  result.stopped = outcome.stopped;
  if (replay) {
    result.history = std::make_shared<ReplayHistory<S>>(*initial, g.archive(), result.steps);
  }
  result.path = toGraph(g, &result.pathIds);
  result.nodesAfter = result.path.nodeCount();
  return result;
}

}  // namespace lsrl::compiler
