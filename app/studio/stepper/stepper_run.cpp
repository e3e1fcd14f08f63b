#include "app/studio/stepper/stepper_run.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "app/studio/stepper/opened_weights.h"
#include "core/compiler/compiler.h"
#include "core/compiler/provenance.h"
#include "core/float_batch/cpu_runner.h"
#include "core/float_batch/layer_program.h"
#include "core/float_batch/target_program.h"
#include "core/precision/fit_constants.h"
#include "core/targets/compile_to_weights.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void checkCancel(const RunProgress& progress) {
  if (progress.cancel != nullptr && progress.cancel->load()) throw Cancelled("run cancelled");
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

// What each path component carries (provenance.h), as labels and per program node.
void labelPath(const Graph& program, Backend backend, StepperRun& out) {
  out.program = std::make_shared<const Graph>(program);
  const PathProvenance p = tracePathProvenance(program, out.graph, backend);
  out.carriedLabels.assign(p.carried.size(), {});
  for (NodeId id = 0; id < static_cast<NodeId>(p.carried.size()); ++id) {
    const auto& carried = p.carried[static_cast<size_t>(id)];
    auto& labels = out.carriedLabels[static_cast<size_t>(id)];
    for (int c = 0; c < static_cast<int>(carried.size()); ++c) {
      const auto& k = carried[static_cast<size_t>(c)];
      labels.push_back(k ? carriedLabel(program, *k) : std::string());
      if (!k || k->relation != Carried::Relation::Same) continue;
      auto& held = out.carriers[k->node];
      if (held.empty()) held.assign(static_cast<size_t>(program.node(k->node).dim), {kNoNode, -1});
      auto& slot = held[static_cast<size_t>(k->component)];
      if (slot.first == kNoNode) slot = {id, c};  // the first (earliest) path node holding it
    }
  }
}

// The compiled path, or the target built from it, on the fp32 CPU batch runner (one
// sequence): its outputs, one row per token.
std::vector<std::vector<double>> runFp32(const Graph& path,
                                         const std::optional<TargetModel>& target,
                                         const ExactSequence& tokens) {
  const float_batch::LayerProgram layers =
      target ? float_batch::layerProgramFromTarget(target->floatModel())
             : float_batch::layerProgramFromPath(path);
  return float_batch::runSequencesCpu(layers, {floatTokens(tokens)}).front();
}

// A weights file's model in float64, for its outputs, as the file's own target would run
// in PyTorch: no compile, the program only says how wide a token is and whether the file
// came from it.
void runWeightsFile(const Graph& program, const std::vector<std::string>& hashes,
                    const RunProgress& progress, StepperRun& out) {
  const EngineSpec& spec = out.spec;
  if (spec.weightsPath.empty()) throw Error("no weights file chosen: pick one with Weights file…");
  if (progress.report)
    progress.report(0, 0, "reading " + std::filesystem::path(spec.weightsPath).filename().string());
  const auto start = std::chrono::steady_clock::now();
  const OpenedWeights weights = openWeights(spec.weightsPath);
  const FloatTargetModel model = weights.model();
  weights.requireInputWidth(program);
  out.fileKind = weights.fineTuned() ? "fine-tuned" : "exported";
  out.warning = weights.sourceWarning(hashes.empty() ? programHashes(program) : hashes);
  // The model does not check its tokens' width as the executor does.
  for (size_t t = 0; t < out.tokens.size(); ++t) {
    if (static_cast<int>(out.tokens[t].size()) != model.inputDim()) {
      throw Error("token " + std::to_string(t) + " has width " +
                  std::to_string(out.tokens[t].size()) + ", " + weights.fileName() + " expects " +
                  std::to_string(model.inputDim()));
    }
  }
  checkCancel(progress);
  out.floatOutputs = model.run(floatTokens(out.tokens));
  out.runSeconds = secondsSince(start);
}

}  // namespace

std::string EngineSpec::label() const {
  if (source == RunSource::WeightsFile)
    return "weights " + std::filesystem::path(weightsPath).filename().string();
  std::string s = source == RunSource::Program ? "program " : "compiled ";
  s += exact ? "exact" : source == RunSource::Compiled && fp32 ? "fp32" : "float64";
  if (source == RunSource::Compiled) {
    if (fitted) s += ", fitted";
    if (!optimize) s += " (no optimise)";
    if (target) s += " \u2192 " + std::string(targetName(*target));
  }
  return s;
}

std::string StepperRun::label() const {
  return fileKind.empty() ? spec.label() : spec.label() + " (" + fileKind + ")";
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

std::string StepperRun::componentLabel(NodeId id, int c) const {
  if (static_cast<size_t>(id) < carriedLabels.size()) {
    const auto& labels = carriedLabels[static_cast<size_t>(id)];
    if (static_cast<size_t>(c) < labels.size() && !labels[static_cast<size_t>(c)].empty())
      return labels[static_cast<size_t>(c)];
  }
  // Appended piece by piece: GCC 12's -Wrestrict misfires on chained "#" + ... + "]".
  std::string label = graph.node(id).name;
  if (label.empty()) label.append("#").append(std::to_string(id));
  return label.append("[").append(std::to_string(c)).append("]");
}

std::vector<NodeId> StepperRun::programOrder() const {
  return program ? program->topologicalOrder() : tracedNodes();
}

std::optional<std::pair<NodeId, int>> StepperRun::carrier(NodeId p, int c) const {
  if (!program) {
    if (!traces(p) || c < 0 || c >= graph.node(p).dim) return std::nullopt;
    return std::pair{p, c};
  }
  const auto it = carriers.find(p);
  if (it == carriers.end() || c < 0 || static_cast<size_t>(c) >= it->second.size() ||
      it->second[static_cast<size_t>(c)].first == kNoNode ||
      !traces(it->second[static_cast<size_t>(c)].first))
    return std::nullopt;
  return it->second[static_cast<size_t>(c)];
}

bool StepperRun::holdsProgramNode(NodeId p) const {
  if (!hasNodeTrace()) return false;
  if (!program) return traces(p);
  const auto it = carriers.find(p);
  if (it == carriers.end() || it->second.empty()) return false;
  for (int c = 0; c < static_cast<int>(it->second.size()); ++c)
    if (!carrier(p, c)) return false;
  return true;
}

namespace {

// Program node p's components gathered from the run's traced nodes, each node read once.
template <class V, class Read>
std::vector<V> gather(const StepperRun& run, NodeId p, Read read) {
  const auto& held = run.carriers.at(p);
  std::map<NodeId, std::vector<V>> values;
  std::vector<V> out;
  for (const auto& [node, c] : held) {
    auto it = values.find(node);
    if (it == values.end()) it = values.emplace(node, read(node)).first;
    out.push_back(it->second.at(static_cast<size_t>(c)));
  }
  return out;
}

}  // namespace

std::vector<double> StepperRun::programValue(NodeId p, int t) const {
  if (!program) return value(p, t);
  return gather<double>(*this, p, [&](NodeId n) { return value(n, t); });
}

std::string StepperRun::programValueText(NodeId p, int t) const {
  if (!program) return valueText(p, t);
  if (const auto* e = std::get_if<ExactTrace>(&trace))
    return formatExact(gather<Exact>(*this, p, [&](NodeId n) { return e->value(n, t); }));
  return formatDouble(programValue(p, t));
}

StepperRun runEngine(const Graph& program, const EngineSpec& spec, const ExactSequence& tokens,
                     const RunProgress& progress, const std::vector<std::string>& programHashes) {
  StepperRun out;
  out.spec = spec;
  out.tokens = tokens;
  if (spec.source == RunSource::WeightsFile) {
    runWeightsFile(program, programHashes, progress, out);
    return out;
  }
  std::optional<TargetModel> target;  // compiled runs with a target
  double targetSeconds = 0;
  if (spec.source == RunSource::Program) {
    out.graph = program;
  } else {
    const auto start = std::chrono::steady_clock::now();
    Graph source = program;
    if (spec.fitted) {
      const InputDomain domain = domainOf({tokens});
      out.fittedTo = domain.describe();
      source =
          fitConstants(program, domain, spec.fp32 ? Precision::Fp32 : Precision::Float64).graph;
    }
    // The path, and the target built from it (outputs only), in one go
    // (core/targets/compile_to_weights.h); the run below needs no tensors.
    WeightsOptions options;
    options.target = spec.target;
    options.last = spec.target ? WeightsStage::Target : WeightsStage::Compile;
    options.compileWhen = CompileWhen::Always;
    options.compile.backend = spec.exact ? Backend::Exact : Backend::Float64;
    options.compile.optimize = spec.optimize;
    options.compile.progress = [&](long long steps) {
      if (progress.report) progress.report(0, 0, "compiling: " + std::to_string(steps) + " steps");
      return progress.cancel == nullptr || !progress.cancel->load();
    };
    options.targetOptions.shift.horizon = std::max(1, static_cast<int>(tokens.size()));
    auto stageStart = start;
    options.onStage = [&](WeightsStage finished) {
      if (finished == WeightsStage::Compile) {
        out.compileSeconds = secondsSince(start);
        stageStart = std::chrono::steady_clock::now();
      } else {
        targetSeconds = secondsSince(stageStart);  // counted with the run, as before
      }
      checkCancel(progress);
    };
    CompiledWeights compiled = compileToWeights(source, options);
    out.graph = std::move(compiled.compile.path);
    target = std::move(compiled.model);
    if (progress.report) progress.report(0, 0, "labelling the path with program values");
    const auto labelStart = std::chrono::steady_clock::now();
    labelPath(source, options.compile.backend, out);
    out.labelSeconds = secondsSince(labelStart);
  }
  checkCancel(progress);

  const auto start = std::chrono::steady_clock::now();
  PlanOptions plan;
  plan.allowHugeSparse = spec.source == RunSource::Compiled;
  if (spec.source == RunSource::Compiled && spec.fp32 && !spec.exact) {
    out.floatOutputs = runFp32(out.graph, target, tokens);
  } else if (!target) {
    if (spec.exact) {
      plan.exact = true;
      plan.extraConductor = tokensConductor(tokens);
      runTraced<Exact>(out.graph, tokens, plan, progress, out);
    } else {
      plan.exact = false;
      runTraced<double>(out.graph, floatTokens(tokens), plan, progress, out);
    }
  } else {
    const TargetModel& model = *target;
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
  out.runSeconds = targetSeconds + secondsSince(start);
  return out;
}

}  // namespace lsrl::studio
