#include "core/seed_models/gateloop.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/seed_models/dense_layers.h"
#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr int kTraceAttentionMaxSteps = 256;  // attention traces are [H][T][T]

std::vector<double> interleave(const std::vector<Complex>& z) {
  std::vector<double> out(2 * z.size());
  for (size_t i = 0; i < z.size(); ++i) {
    out[2 * i] = z[i].real();
    out[2 * i + 1] = z[i].imag();
  }
  return out;
}

double maxAbsDifference(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// The arrays of the explorer's views (§5.2) for one layer (gateloop.h lists them).
void traceLayer(Trace& trace, const std::string& pre, const GateLoopInputs& in,
                const std::vector<double>& gammaPre, const std::vector<double>& thetaPre,
                const std::vector<Complex>& y, const std::vector<Complex>& states,
                const Sequence& layerOutput) {
  const int64_t T = in.steps, C = in.width(), H = in.heads, dh = in.dh;
  std::vector<double> mag, phase, memory;
  for (const Complex la : in.logA) {
    mag.push_back(std::exp(la.real()));
    phase.push_back(la.imag());
    memory.push_back(-1 / la.real());
  }
  const std::vector<Complex> reference = gateLoopRecurrent(in);
  trace.add(pre + "gamma_pre", {T, C}, gammaPre);
  trace.add(pre + "theta_pre", {T, C}, thetaPre);
  trace.add(pre + "a_magnitude", {T, C}, mag);
  trace.add(pre + "a_phase", {T, C}, phase);
  trace.add(pre + "memory_length", {T, C}, memory);
  trace.add(pre + "q", {T, C}, in.q);
  trace.add(pre + "k", {T, C}, in.k);
  trace.add(pre + "v", {T, C}, in.v);
  trace.add(pre + "prefix_log", {T, C, 2}, interleave(gateLoopPrefixLog(in)));
  trace.add(pre + "state", {T, H, dh, dh, 2}, interleave(states));
  trace.add(pre + "y", {T, C, 2}, interleave(y));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> differences = {
      maxAbsDifference(gateLoopScan(in, GateLoopScanAlgorithm::Blelloch), reference),
      maxAbsDifference(gateLoopScan(in, GateLoopScanAlgorithm::HillisSteele), reference), nan, nan};
  if (T <= kTraceAttentionMaxSteps) {
    std::vector<Complex> scores;
    differences[2] =
        maxAbsDifference(gateLoopAttention(in, GateLoopDomain::Log, &scores), reference);
    differences[3] = maxAbsDifference(gateLoopAttention(in, GateLoopDomain::Naive), reference);
    trace.add(pre + "attention", {H, T, T, 2}, interleave(scores));
  }
  trace.add(pre + "mode_difference", {4}, differences);
  trace.add(pre + "layer_output", {T, C}, flatten(layerOutput));
}

// The states of the mode that ran (the scans build them; otherwise the recurrence).
std::vector<Complex> modeStates(const GateLoopInputs& in, GateLoopMode mode) {
  std::vector<Complex> states;
  if (mode == GateLoopMode::Scan || mode == GateLoopMode::ScanHillisSteele)
    gateLoopScan(in,
                 mode == GateLoopMode::Scan ? GateLoopScanAlgorithm::Blelloch
                                            : GateLoopScanAlgorithm::HillisSteele,
                 &states);
  else
    gateLoopRecurrent(in, &states);
  return states;
}

Tensor initial(Rng& rng, const GateLoopWeightSpec& s) {
  const std::string& n = s.name;
  if (n == "embed.weight") return randomNormal(rng, n, s.shape, 1.0);
  if (endsWith(n, "gamma.bias")) return randomUniform(rng, n, s.shape, 1.0, 4.0);
  if (endsWith(n, "theta.bias")) return randomUniform(rng, n, s.shape, 0.0, std::numbers::pi / 4);
  const bool isNorm = n.find("norm") != std::string::npos;
  if (isNorm) return filled(n, s.shape, endsWith(n, ".weight") ? 1.0 : 0.0);
  if (endsWith(n, ".bias")) return filled(n, s.shape, 0.0);
  return randomNormal(rng, n, s.shape, 1 / std::sqrt(static_cast<double>(s.shape[1])));
}

}  // namespace

GateLoopModel::GateLoopModel(const GateLoopConfig& config) : config_(config) {
  Rng rng(config.seed);
  for (const GateLoopWeightSpec& s : gateLoopWeightSpecs(config))
    weights_.push_back(initial(rng, s));
}

GateLoopModel::GateLoopModel(const GateLoopConfig& config, const std::vector<Tensor>& weights)
    : config_(config) {
  weights_ =
      takeWeights({config.toJson(), weights, "gateloop weights"}, gateLoopWeightSpecs(config));
}

GateLoopModel GateLoopModel::load(const std::string& path) {
  const LoadedWeights w = loadWeights(path, "gateloop");
  GateLoopConfig config;
  try {
    config = GateLoopConfig::fromJson(w.config);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  try {
    return GateLoopModel(config, w.tensors);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void GateLoopModel::save(const std::string& path) const {
  saveWeights(path, kind(), config(), weights_);
}

const Tensor& GateLoopModel::weight(const std::string& name) const {
  for (const Tensor& t : weights_)
    if (t.name == name) return t;
  throw Error("gateloop: no weight \"" + name + "\"");
}

GateLoopInputs GateLoopModel::operatorInputs(int layer, const Sequence& u,
                                             std::vector<double>* gammaPre,
                                             std::vector<double>* thetaPre) const {
  if (layer < 0 || layer >= config_.layers)
    throw Error("gateloop: layer " + std::to_string(layer) + " out of range 0.." +
                std::to_string(config_.layers - 1));
  requireWidth("gateloop layer input", u, config_.dModel);
  const std::string p = "layers." + std::to_string(layer) + ".";
  const int T = static_cast<int>(u.size()), C = config_.dModel;
  GateLoopInputs in = gateLoopInputs(config_.heads(), config_.dh, T);
  if (gammaPre) gammaPre->assign(in.logA.size(), 0.0);
  if (thetaPre) thetaPre->assign(in.logA.size(), 0.0);
  auto project = [&](const std::string& name, const Vector& x) {
    return linear(weight(p + name + ".weight"), &weight(p + name + ".bias"), x);
  };
  for (int n = 0; n < T; ++n) {
    const Vector q = project("q", u[sz(n)]), k = project("k", u[sz(n)]), v = project("v", u[sz(n)]);
    // Fixed transitions (§2.7's LRU/RetNet comparison): a depends on the biases only.
    const Vector g =
        config_.dataControlled ? project("gamma", u[sz(n)]) : weight(p + "gamma.bias").data;
    const Vector th =
        config_.dataControlled ? project("theta", u[sz(n)]) : weight(p + "theta.bias").data;
    for (int c = 0; c < C; ++c) {
      const size_t i = sz(n) * sz(C) + sz(c);
      in.q[i] = q[sz(c)];
      in.k[i] = k[sz(c)];
      in.v[i] = v[sz(c)];
      if (gammaPre) (*gammaPre)[i] = g[sz(c)];
      if (thetaPre) (*thetaPre)[i] = th[sz(c)];
      in.logA[i] = gateLoopLogTransition(g[sz(c)], th[sz(c)], config_.magnitude, config_.phase);
    }
  }
  return in;
}

Sequence GateLoopModel::run(const Sequence& input, Trace* trace) const {
  return run(input, config_.mode, trace);
}

Sequence GateLoopModel::run(const Sequence& input, GateLoopMode mode, Trace* trace) const {
  Sequence x = embed(input);
  for (int l = 0; l < config_.layers; ++l) {
    std::vector<double> gammaPre, thetaPre;
    const GateLoopInputs in = layerInputs(l, x, &gammaPre, &thetaPre);
    const std::vector<Complex> y = gateLoopRun(in, mode);
    x = layerOutput(l, x, y);
    if (trace) addLayerTrace(*trace, l, in, gammaPre, thetaPre, y, modeStates(in, mode), x);
  }
  Sequence out = head(x);
  if (trace) trace->add("output", {int64_t(out.size()), config_.dOut}, flatten(out));
  return out;
}

Sequence GateLoopModel::embed(const Sequence& input) const {
  requireWidth("gateloop", input, inputWidth());
  Sequence x;
  for (const Vector& row : input) x.push_back(linear(weight("embed.weight"), nullptr, row));
  return x;
}

Sequence GateLoopModel::normed(const std::string& name, const Sequence& rows) const {
  if (!config_.layerNorm) return rows;
  Sequence out;
  for (const Vector& r : rows)
    out.push_back(layerNorm(weight(name + ".weight"), weight(name + ".bias"), r));
  return out;
}

GateLoopInputs GateLoopModel::layerInputs(int layer, const Sequence& x,
                                          std::vector<double>* gammaPre,
                                          std::vector<double>* thetaPre) const {
  return operatorInputs(layer, normed("layers." + std::to_string(layer) + ".norm1", x), gammaPre,
                        thetaPre);
}

Sequence GateLoopModel::layerOutput(int layer, const Sequence& x,
                                    const std::vector<Complex>& y) const {
  const std::string p = "layers." + std::to_string(layer) + ".";
  const size_t T = x.size(), C = sz(config_.dModel);
  requireSize("gateloop layer output: y entries", T * C, y.size());
  Sequence o(T, Vector(C));
  for (size_t n = 0; n < T; ++n) {
    for (size_t c = 0; c < C; ++c) o[n][c] = y[n * C + c].real();
    if (config_.outputProjection)
      o[n] = linear(weight(p + "out.weight"), &weight(p + "out.bias"), o[n]);
  }
  Sequence out = x;
  if (config_.residual)
    addInto(out, o);
  else
    out = std::move(o);
  if (config_.channelMixing) {
    Sequence f = normed(p + "norm2", out);
    for (Vector& r : f) {
      Vector h = linear(weight(p + "ffn.up.weight"), &weight(p + "ffn.up.bias"), r);
      for (double& v : h) v = gelu(v);
      r = linear(weight(p + "ffn.down.weight"), &weight(p + "ffn.down.bias"), h);
    }
    if (config_.residual)
      addInto(out, f);
    else
      out = std::move(f);
  }
  return out;
}

Sequence GateLoopModel::head(const Sequence& x) const {
  Sequence out;
  for (const Vector& r : normed("norm_f", x))
    out.push_back(linear(weight("head.weight"), &weight("head.bias"), r));
  return out;
}

void GateLoopModel::addLayerTrace(Trace& trace, int layer, const GateLoopInputs& in,
                                  const std::vector<double>& gammaPre,
                                  const std::vector<double>& thetaPre,
                                  const std::vector<Complex>& y, const std::vector<Complex>& states,
                                  const Sequence& layerOutput) const {
  traceLayer(trace, layer == 0 ? "" : "layer" + std::to_string(layer) + ".", in, gammaPre, thetaPre,
             y, states, layerOutput);
}

std::vector<std::string> GateLoopModel::tasks() const {
  return {"memory_horizon", "sum_since_reset", "tick"};
}

std::vector<int> GateLoopModel::taskTokens(const std::string& task, uint64_t seed) const {
  if (task == "memory_horizon" || task == "sum_since_reset")
    return memoryHorizonSample(config_.task, seed).tokens;
  if (task == "tick") return tickTokens(config_.task);
  throw Error("gateloop: unknown task \"" + task +
              "\" (expected memory_horizon, sum_since_reset, tick)");
}

Sequence GateLoopModel::taskInput(const std::string& task, uint64_t seed) const {
  return oneHot(taskTokens(task, seed), config_.dIn());
}

std::vector<double> GateLoopModel::taskTargets(const std::string& task, uint64_t seed) const {
  const std::vector<int> tokens = taskTokens(task, seed);
  if (task == "sum_since_reset") return sumSinceReset(tokens, config_.task);
  std::vector<double> out(tokens.size());
  if (task == "tick") {
    for (size_t n = 0; n < out.size(); ++n) out[n] = static_cast<double>(n);
    return out;
  }
  const std::vector<int> targets = memoryHorizonTargets(tokens, config_.task);
  std::copy(targets.begin(), targets.end(), out.begin());
  return out;
}

}  // namespace lsrl::seed_models
