#include "app/studio/live/live_compile.h"

#include <chrono>
#include <future>

#include "app/studio/common/declared_input_domain.h"
#include "app/studio/common/value_text.h"
#include "core/float_batch/cpu_runner.h"
#include "core/float_batch/layer_program.h"
#include "core/graph/checks.h"
#include "core/precision/certificate.h"
#include "core/precision/fit_constants.h"
#include "core/util/error.h"
#include "core/util/thread_priority.h"

namespace lsrl::studio {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void checkCancel(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load()) throw Cancelled("live compile cancelled");
}

template <class V>
std::vector<std::vector<V>> runFromReset(const Graph& g, const std::vector<std::vector<V>>& tokens,
                                         PlanOptions options, const std::atomic<bool>* cancel) {
  Executor<V> ex(Plan::make(g, options));
  ex.reset();
  std::vector<std::vector<V>> out;
  out.reserve(tokens.size());
  for (const auto& token : tokens) {
    checkCancel(cancel);
    out.push_back(ex.step(token));
  }
  return out;
}

void runProgram(const LiveRequest& request, LiveResult& out, const std::atomic<bool>* cancel) {
  const Graph& g = request.program;
  const int width = g.node(g.input()).dim;
  for (size_t t = 0; t < request.prompt.size(); ++t) {
    const int got = static_cast<int>(request.prompt[t].size());
    if (got != width)
      throw Error("prompt token " + std::to_string(t) + " has " + std::to_string(got) +
                  (got == 1 ? " value" : " values") + "; the program's Input takes " +
                  std::to_string(width));
  }
  PlanOptions plan;
  if (request.exactProgram) {
    plan.exact = true;
    plan.extraConductor = tokensConductor(request.prompt);
    for (const ExactVector& row : runFromReset<Exact>(g, request.prompt, plan, cancel)) {
      std::vector<double> d;
      for (const Exact& x : row) d.push_back(x.toDouble());
      out.programOutputs.push_back(std::move(d));
      out.programTexts.push_back(formatExact(row));
    }
  } else {
    plan.exact = false;
    out.programOutputs = runFromReset<double>(g, floatTokens(request.prompt), plan, cancel);
    for (const auto& row : out.programOutputs) out.programTexts.push_back(formatDouble(row));
  }
}

// Fits, compiles and runs the network for one arithmetic (Float64 or Fp32).
LiveNetwork buildNetwork(const LiveRequest& request, const InputDomain& domain, Precision precision,
                         const std::atomic<bool>* cancel,
                         std::shared_ptr<const CompileResult>* keep) {
  const auto start = Clock::now();
  LiveNetwork net;
  const ConstantFit fit = fitConstants(request.program, domain, precision);
  net.constantsFitted = static_cast<int>(fit.changes.size());
  net.fitSeconds = secondsSince(start);
  checkCancel(cancel);
  auto stage = Clock::now();
  CompileOptions options;
  options.backend = Backend::Float64;
  options.optimize = true;
  options.recordHistory = keep != nullptr;
  options.replayableHistory = keep != nullptr;
  options.progress = [cancel](long long) { return cancel == nullptr || !cancel->load(); };
  auto compiled = std::make_shared<CompileResult>(compile(fit.graph, options));
  checkCancel(cancel);
  net.compileSeconds = secondsSince(stage);
  stage = Clock::now();
  net.size = graphSize(compiled->path);
  if (precision == Precision::Fp32) {
    net.outputs = float_batch::runSequencesCpu(float_batch::layerProgramFromPath(compiled->path),
                                               {floatTokens(request.prompt)})
                      .front();
  } else {
    PlanOptions plan;
    plan.exact = false;
    plan.allowHugeSparse = true;
    net.outputs = runFromReset<double>(compiled->path, floatTokens(request.prompt), plan, cancel);
  }
  checkCancel(cancel);
  net.runSeconds = secondsSince(stage);
  stage = Clock::now();
  const Certificate c = certifyPrecision(fit.graph, fit.analysis, domain, precision);
  net.certified = c.safe;
  net.certificate = c.summary();
  net.certifySeconds = secondsSince(stage);
  if (keep != nullptr) *keep = std::move(compiled);
  net.seconds = secondsSince(start);
  return net;
}

// The file's declared domain, when it parses and holds every prompt token (else nullopt,
// with the reason in *why).
std::optional<InputDomain> declaredHolding(const LiveRequest& r, std::string* why) {
  if (!r.declared.complete()) return std::nullopt;
  InputDomain domain;
  try {
    domain = inputDomainOf(r.declared);
  } catch (const Error& e) {
    *why = std::string("the declared domain does not parse: ") + e.what();
    return std::nullopt;
  }
  if (static_cast<long long>(r.prompt.size()) > domain.horizon) {
    *why = "the prompt's " + std::to_string(r.prompt.size()) + " tokens pass the declared " +
           domain.describe();
    return std::nullopt;
  }
  for (size_t t = 0; t < r.prompt.size(); ++t) {
    for (const Exact& v : r.prompt[t]) {
      const bool onGrid =
          !domain.grid || (v.isRational() && ((v - domain.lo) / Exact(*domain.grid)).isInteger());
      if (v < domain.lo || domain.hi < v || !onGrid) {
        *why = "token " + std::to_string(t) + " (" + v.toString() + ") leaves the declared " +
               domain.describe();
        return std::nullopt;
      }
    }
  }
  return domain;
}

const std::vector<std::vector<double>>* networkRows(const LiveResult& r, LiveColumn column) {
  switch (column) {
    case LiveColumn::Program:
      return &r.programOutputs;
    case LiveColumn::Float64:
      return r.float64 ? &r.float64->outputs : nullptr;
    case LiveColumn::Fp32:
      return r.fp32 ? &r.fp32->outputs : nullptr;
    case LiveColumn::Target:
      return r.target ? &r.targetOutputs : nullptr;
  }
  return nullptr;
}

}  // namespace

std::string LiveResult::text(LiveColumn column, int t) const {
  if (t < 0) return {};
  if (column == LiveColumn::Program)
    return static_cast<size_t>(t) < programTexts.size() ? programTexts[static_cast<size_t>(t)]
                                                        : std::string();
  const auto* rows = networkRows(*this, column);
  if (rows == nullptr || static_cast<size_t>(t) >= rows->size()) return {};
  return formatDouble((*rows)[static_cast<size_t>(t)]);
}

bool LiveResult::differs(LiveColumn column, int t) const {
  if (column == LiveColumn::Program || t < 0 || static_cast<size_t>(t) >= programOutputs.size())
    return false;
  const auto* rows = networkRows(*this, column);
  if (rows == nullptr || static_cast<size_t>(t) >= rows->size()) return false;
  return formatDouble((*rows)[static_cast<size_t>(t)]) !=
         formatDouble(programOutputs[static_cast<size_t>(t)]);
}

std::vector<int> LiveResult::differingTokens() const {
  std::vector<int> out;
  for (int t = 0; t < tokens(); ++t) {
    for (LiveColumn c : {LiveColumn::Float64, LiveColumn::Fp32, LiveColumn::Target}) {
      if (differs(c, t)) {
        out.push_back(t);
        break;
      }
    }
  }
  return out;
}

LiveResult runLiveCompile(const LiveRequest& request, const std::atomic<bool>* cancel) {
  const auto start = Clock::now();
  LiveResult out;
  for (const ExactVector& token : request.prompt) {
    std::string text;
    for (size_t i = 0; i < token.size(); ++i) text += (i ? ", " : "") + token[i].toString();
    out.tokenTexts.push_back(std::move(text));
  }
  for (const Problem& p : checkGraph(request.program)) out.problems.push_back(p.message);
  if (!out.problems.empty()) return out;
  if (request.prompt.empty()) {
    out.programError = "the prompt is empty: type tokens to run the program on";
    return out;
  }
  try {
    const auto programStart = Clock::now();
    runProgram(request, out, cancel);
    out.programSeconds = secondsSince(programStart);
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    out.programError = e.what();
    return out;
  }

  const InputDomain promptDomain = domainOf({request.prompt});
  try {
    // The file's declared domain (what lsrl compile fits to) when asked for and the prompt
    // is in it.
    std::optional<InputDomain> declared;
    if (request.fitToDeclared) declared = declaredHolding(request, &out.notDeclared);
    const InputDomain domain = declared ? *declared : promptDomain;
    out.fittedDomain = declared ? "declared" : "prompt";
    out.fittedTo = domain.describe();
    // The fp32 network on a second thread while this one makes the float64 one: the two
    // are independent and each is about half of the time.
    auto fp32 = std::async(std::launch::async, [&] {
      const ExactThreadScope releaseCaches;
      if (request.background) runThisThreadInBackground();
      return buildNetwork(request, domain, Precision::Fp32, cancel, nullptr);
    });
    std::optional<LiveNetwork> float64, fp32Network;
    std::exception_ptr failure, fp32Failure;
    try {
      float64 = buildNetwork(request, domain, Precision::Float64, cancel,
                             request.keepHistory || request.target ? &out.compile : nullptr);
    } catch (...) {
      failure = std::current_exception();
    }
    try {
      fp32Network = fp32.get();  // waits for it whatever happened here
    } catch (...) {
      fp32Failure = std::current_exception();
    }
    checkCancel(cancel);
    if (failure) std::rethrow_exception(failure);
    if (fp32Failure) std::rethrow_exception(fp32Failure);
    out.float64 = std::move(float64);
    out.fp32 = std::move(fp32Network);
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    out.networkError = e.what();
  }

  if (request.target && out.compile) {
    try {
      TargetOptions options;
      options.shift.horizon = std::max(1, static_cast<int>(request.prompt.size()));
      options.shift.inputLo = promptDomain.lo;
      options.shift.inputHi =
          promptDomain.hi == promptDomain.lo ? promptDomain.lo + Exact(1) : promptDomain.hi;
      const TargetModel model = buildTarget(out.compile->path, *request.target, options);
      checkCancel(cancel);
      out.targetOutputs = model.runFloat(floatTokens(request.prompt));
      out.target = request.target;
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& e) {
      out.targetError = e.what();
    }
  }
  if (!request.keepHistory) out.compile.reset();
  out.seconds = secondsSince(start);
  return out;
}

std::string sizeChange(const GraphSize& before, const GraphSize& after) {
  std::vector<std::string> parts;
  auto add = [&](long long b, long long a, const char* one, const char* many) {
    const long long d = a - b;
    if (d == 0) return;
    const long long n = d < 0 ? -d : d;
    parts.push_back(std::string(d > 0 ? "+" : "\u2212") + std::to_string(n) + " " +
                    (n == 1 ? one : many));
  };
  add(before.layers, after.layers, "layer", "layers");
  add(before.stateDim, after.stateDim, "state dim", "state dims");
  add(before.nonZeroParams, after.nonZeroParams, "non-zero", "non-zeros");
  if (parts.empty()) return "same size";
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace lsrl::studio
