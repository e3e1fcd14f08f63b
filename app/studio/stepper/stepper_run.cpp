#include "app/studio/stepper/stepper_run.h"

#include <chrono>
#include <cstdio>
#include <numeric>

#include "core/compile/compiler.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void checkCancel(const RunProgress& progress) {
  if (progress.cancel != nullptr && progress.cancel->load()) throw Cancelled("run cancelled");
}

// Exact tokens may hold constants the program does not (sqrt(5) in a rational program).
long long tokenConductor(const ExactSequence& tokens) {
  long long n = 4;
  for (const ExactVector& row : tokens)
    for (const Exact& x : row) n = std::lcm(n, static_cast<long long>(x.conductor()));
  return n;
}

// Runs the graph token by token (for progress and cancel), recording every step.
template <class V>
void runTraced(const Graph& graph, const std::vector<std::vector<V>>& tokens, PlanOptions options,
               const RunProgress& progress, StepperRun& out) {
  Executor<V> ex(Plan::make(graph, options));
  Trace<V> trace;
  ex.reset();
  const int total = static_cast<int>(tokens.size());
  for (int t = 0; t < total; ++t) {
    checkCancel(progress);
    const std::vector<V> y = ex.step(tokens[static_cast<size_t>(t)]);
    ex.record(trace);
    if constexpr (std::is_same_v<V, Exact>) {
      out.exactOutputs.push_back(y);
      std::vector<double> d;
      for (const Exact& x : y) d.push_back(x.toDouble());
      out.floatOutputs.push_back(std::move(d));
    } else {
      out.floatOutputs.push_back(y);
    }
    if (progress.report) progress.report(t + 1, total, "running");
  }
  out.trace = std::move(trace);
}

std::string formatOne(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

std::string EngineSpec::label() const {
  std::string s = source == RunSource::Program ? "program " : "compiled ";
  s += exact ? "exact" : "float64";
  if (source == RunSource::Compiled) {
    if (!optimize) s += " (no optimise)";
    if (target) s += " \u2192 " + std::string(targetName(*target));
  }
  return s;
}

std::vector<NodeId> StepperRun::tracedNodes() const {
  if (const auto* f = std::get_if<FloatTrace>(&trace)) return f->nodes();
  if (const auto* e = std::get_if<ExactTrace>(&trace)) return e->nodes();
  return {};
}

bool StepperRun::traces(NodeId id) const {
  if (const auto* f = std::get_if<FloatTrace>(&trace)) return f->contains(id);
  if (const auto* e = std::get_if<ExactTrace>(&trace)) return e->contains(id);
  return false;
}

std::vector<double> StepperRun::value(NodeId id, int t) const {
  if (const auto* f = std::get_if<FloatTrace>(&trace)) return f->value(id, t);
  if (const auto* e = std::get_if<ExactTrace>(&trace)) {
    std::vector<double> d;
    for (const Exact& x : e->value(id, t)) d.push_back(x.toDouble());
    return d;
  }
  throw Error(spec.label() + " has no node values (a target model's run gives outputs only)");
}

std::string StepperRun::valueText(NodeId id, int t) const {
  if (const auto* e = std::get_if<ExactTrace>(&trace)) return formatExact(e->value(id, t));
  return formatDouble(value(id, t));
}

std::string StepperRun::outputText(int t) const {
  if (isExact()) return formatExact(exactOutputs.at(static_cast<size_t>(t)));
  return formatDouble(floatOutputs.at(static_cast<size_t>(t)));
}

std::string formatExact(const std::vector<Exact>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].toString();
  return s + "]";
}

std::string formatDouble(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + formatOne(v[i]);
  return s + "]";
}

StepperRun runEngine(const Graph& program, const EngineSpec& spec, const ExactSequence& tokens,
                     const RunProgress& progress) {
  StepperRun out;
  out.spec = spec;
  out.tokens = tokens;
  if (spec.source == RunSource::Program) {
    out.graph = program;
  } else {
    const auto start = std::chrono::steady_clock::now();
    CompileOptions options;
    options.backend = spec.exact ? Backend::Exact : Backend::Float64;
    options.recordHistory = false;
    options.optimize = spec.optimize;
    options.progress = [&](long long steps) {
      if (progress.report) progress.report(0, 0, "compiling: " + std::to_string(steps) + " steps");
      return progress.cancel == nullptr || !progress.cancel->load();
    };
    out.graph = compile(program, options).path;
    out.compileSeconds = secondsSince(start);
  }
  checkCancel(progress);

  const auto start = std::chrono::steady_clock::now();
  PlanOptions plan;
  plan.allowHugeSparse = spec.source == RunSource::Compiled;
  if (!spec.target) {
    if (spec.exact) {
      plan.exact = true;
      plan.extraConductor = tokenConductor(tokens);
      runTraced<Exact>(out.graph, tokens, plan, progress, out);
    } else {
      plan.exact = false;
      runTraced<double>(out.graph, floatTokens(tokens), plan, progress, out);
    }
  } else {
    TargetOptions options;
    options.shift.horizon = std::max(1, static_cast<int>(tokens.size()));
    const TargetModel model = buildTarget(out.graph, *spec.target, options);
    checkCancel(progress);
    if (spec.exact) {
      out.exactOutputs = model.run(tokens);
      for (const auto& row : out.exactOutputs) {
        std::vector<double> d;
        for (const Exact& x : row) d.push_back(x.toDouble());
        out.floatOutputs.push_back(std::move(d));
      }
    } else {
      out.floatOutputs = model.runFloat(floatTokens(tokens));
    }
  }
  out.runSeconds = secondsSince(start);
  return out;
}

}  // namespace lsrl::studio
