#include "app/studio/plots/ua_heatmap.h"

#include <chrono>
#include <cmath>
#include <numbers>

#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/float_batch/cpu_runner.h"
#include "core/float_batch/layer_program.h"
#include "core/precision/fit_constants.h"
#include "core/programs/vec2vec.h"
#include "core/util/error.h"

namespace lsrl::studio {

const std::vector<UaTarget>& uaTargets() {
  using std::numbers::pi;
  static const std::vector<UaTarget> targets = {
      {"sin_cos", "sin(2πx)·cos(2πy)",
       [](const std::vector<double>& x) {
         return std::vector<double>{std::sin(2 * pi * x[0]) * std::cos(2 * pi * x[1])};
       }},
      {"sin_sin", "sin(πx)·sin(πy)",
       [](const std::vector<double>& x) {
         return std::vector<double>{std::sin(pi * x[0]) * std::sin(pi * x[1])};
       }},
      {"saddle", "4·(x − ½)·(y − ½)",
       [](const std::vector<double>& x) {
         return std::vector<double>{4 * (x[0] - 0.5) * (x[1] - 0.5)};
       }},
      {"smooth_random", "smooth random function (seed 1)", smoothTestFunction(2, 1, 1)},
  };
  return targets;
}

std::vector<std::vector<double>> UaHeatmapResult::difference() const {
  std::vector<std::vector<double>> d = model;
  for (size_t j = 0; j < d.size(); ++j)
    for (size_t i = 0; i < d[j].size(); ++i) d[j][i] -= target[j][i];
  return d;
}

double UaHeatmapResult::maxErrorAtValidQueries() const {
  double worst = 0;
  for (size_t j = 0; j < model.size(); ++j)
    for (size_t i = 0; i < model[j].size(); ++i)
      if (valid[j][i]) worst = std::max(worst, std::abs(model[j][i] - expected[j][i]));
  return worst;
}

namespace {

// The program compiled (exact, optimised), its constants fitted for fp32 first when
// asked: the targets' values lie in [-3, 3], as do the query, widths and corners.
float_batch::LayerProgram compiledLayers(const Graph& program, const UaHeatmapRequest& request,
                                         int tokensPerQuery) {
  Graph source = program;
  if (request.run == UaRun::FittedFp32) {
    const InputDomain domain{Exact(-3), Exact(3), std::nullopt, tokensPerQuery};
    source = fitConstants(program, domain, Precision::Fp32).graph;
  }
  CompileOptions options;
  options.recordHistory = false;
  return float_batch::layerProgramFromPath(compile(source, options).path);
}

std::vector<double> lastOutputs(const std::vector<FloatSequence>& outputs) {
  std::vector<double> last;
  for (const FloatSequence& o : outputs) last.push_back(o.back()[0]);
  return last;
}

}  // namespace

UaHeatmapResult computeUaHeatmap(const UaHeatmapRequest& request,
                                 const std::function<void(int, int)>& progress,
                                 const std::function<bool()>& cancelled) {
  const auto start = std::chrono::steady_clock::now();
  if (request.N < 1)
    throw Error("UA heat map: N must be at least 1, got " + std::to_string(request.N));
  if (request.grid < 1)
    throw Error("UA heat map: the query grid must be at least 1, got " +
                std::to_string(request.grid));
  if (request.target < 0 || request.target >= static_cast<int>(uaTargets().size()))
    throw Error("UA heat map: no target function " + std::to_string(request.target) +
                " (there are " + std::to_string(uaTargets().size()) + ")");
  const TargetFunction& f = uaTargets()[static_cast<size_t>(request.target)].f;
  constexpr int n = 2, m = 1;

  Vec2vecParams params;
  params.n = n;
  params.m = m;
  params.conditional = request.variant;
  const bool exact = request.exact && request.run == UaRun::Program;
  PlanOptions options;
  options.exact = exact;  // float64 unless exact mode asks for the exact path
  const Graph program = buildVec2vec(params);
  const auto plan = Plan::make(program, options);
  // The prompt's values f(centre) are doubles taken exactly; the same function gives
  // the exact expected answer.
  const ExactTargetFunction exactF = [&f](const ExactVector& x) {
    std::vector<double> xd;
    for (const Exact& v : x) xd.push_back(v.toDouble());
    ExactVector out;
    for (double v : f(xd)) out.emplace_back(v);
    return out;
  };
  const ExactSequence prompt = vec2vecPromptTokens(n, m, request.N, exactF);
  const FloatSequence promptTokens = exact ? FloatSequence{} : floatTokens(prompt);

  UaHeatmapResult r;
  r.request = request;
  const int G = request.grid;
  r.tokensPerQuery = static_cast<int>(prompt.size()) + 1;
  for (int i = 0; i < G; ++i) r.coords.push_back((i + 0.5) / G);
  const auto grid = [G] {
    return std::vector<std::vector<double>>(static_cast<size_t>(G),
                                            std::vector<double>(static_cast<size_t>(G)));
  };
  r.model = grid();
  r.target = grid();
  r.expected = grid();
  r.valid.assign(static_cast<size_t>(G), std::vector<bool>(static_cast<size_t>(G)));
  std::optional<float_batch::LayerProgram> layers;
  if (request.run != UaRun::Program) layers = compiledLayers(program, request, r.tokensPerQuery);
  if (exact) {
    r.exactModel.assign(static_cast<size_t>(G), std::vector<Exact>(static_cast<size_t>(G)));
    r.exactExpected = r.exactModel;
  }
  // Query coordinate i as an exact rational (no floating point in the exact path).
  const auto exactCoord = [G](int i) { return Exact::rational(2LL * i + 1, 2LL * G); };
  BatchOptions batch;
  batch.threads = request.threads;
  for (int j = 0; j < G; ++j) {
    if (cancelled && cancelled()) throw Cancelled("UA heat map cancelled");
    const auto J = static_cast<size_t>(j);
    if (exact) {
      std::vector<ExactSequence> inputs;
      for (int i = 0; i < G; ++i)
        inputs.push_back(vec2vecInput(ExactVector{exactCoord(i), exactCoord(j)}, m, prompt));
      const std::vector<ExactSequence> outputs = runBatch(plan, inputs, batch);
      for (int i = 0; i < G; ++i) {
        const auto I = static_cast<size_t>(i);
        const ExactVector x = {exactCoord(i), exactCoord(j)};
        r.exactModel[J][I] = outputs[I].back()[0];
        r.exactExpected[J][I] = vec2vecExpected(x, request.N, exactF)[0];
        r.model[J][I] = r.exactModel[J][I].toDouble();
        r.expected[J][I] = r.exactExpected[J][I].toDouble();
        r.valid[J][I] = queryIsValid(x, request.N, params.mu);
        r.target[J][I] = f({r.coords[I], r.coords[J]})[0];  // display only
      }
    } else {
      std::vector<FloatSequence> inputs;
      for (int i = 0; i < G; ++i) {
        FloatSequence tokens;
        tokens.reserve(promptTokens.size() + 1);
        tokens.push_back(
            {r.coords[static_cast<size_t>(i)], r.coords[static_cast<size_t>(j)], 0.0, 0.0});
        tokens.insert(tokens.end(), promptTokens.begin(), promptTokens.end());
        inputs.push_back(std::move(tokens));
      }
      // The compile on the fp32 CPU batch runner, or the program in float64.
      const std::vector<double> last = lastOutputs(
          layers ? float_batch::runSequencesCpu(*layers, inputs) : runBatch(plan, inputs, batch));
      for (int i = 0; i < G; ++i) {
        const auto I = static_cast<size_t>(i);
        const std::vector<double> x = {r.coords[I], r.coords[J]};
        r.model[J][I] = last[I];
        r.target[J][I] = f(x)[0];
        r.expected[J][I] = vec2vecExpected(x, request.N, f)[0];
        r.valid[J][I] = queryIsValid(x, request.N, params.mu);
      }
    }
    if (progress) progress(j + 1, G);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace lsrl::studio
