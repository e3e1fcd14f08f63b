#include "core/seed_models/looped.h"

#include <algorithm>
#include <cmath>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

void append(std::vector<double>& out, const Sequence& rows) {
  for (const Vector& r : rows) out.insert(out.end(), r.begin(), r.end());
}

double distance(const Sequence& a, const Sequence& b) {
  double s = 0;
  for (size_t n = 0; n < a.size(); ++n)
    for (size_t i = 0; i < a[n].size(); ++i) s += (a[n][i] - b[n][i]) * (a[n][i] - b[n][i]);
  return std::sqrt(s);
}

Tensor initial(Rng& rng, const LoopedWeightSpec& s, const LoopedConfig& c) {
  const std::string& n = s.name;
  if (n == "modulation.weight")
    return c.zeroModulationInit ? filled(n, s.shape, 0.0)
                                : randomNormal(rng, n, s.shape, 0.5 / std::sqrt(double(c.d)));
  if (n == "modulation.bias") {
    Tensor b = filled(n, s.shape, 0.0);
    if (!c.zeroModulationInit) std::fill(b.data.begin(), b.data.begin() + 2 * c.d, 1.0);  // γ = 1
    return b;
  }
  if (endsWith(n, ".bias")) return filled(n, s.shape, 0.0);
  return randomNormal(rng, n, s.shape, 1 / std::sqrt(static_cast<double>(s.shape[1])));
}

}  // namespace

LoopedModel::LoopedModel(const LoopedConfig& config) : config_(config) {
  Rng rng(config.seed);
  for (const LoopedWeightSpec& s : loopedWeightSpecs(config))
    weights_.push_back(initial(rng, s, config));
  bind();
}

LoopedModel::LoopedModel(const LoopedConfig& config, const std::vector<Tensor>& weights)
    : config_(config) {
  weights_ = takeWeights({config.toJson(), weights, "looped weights"}, loopedWeightSpecs(config));
  bind();
}

void LoopedModel::bind() {
  auto affine = [&](const std::string& name, bool bias) {
    return Affine::fromTensors(weight(name + ".weight"), bias ? &weight(name + ".bias") : nullptr);
  };
  block_ = {affine("attn.q", config_.qkvoBias), affine("attn.k", config_.qkvoBias),
            affine("attn.v", config_.qkvoBias), affine("attn.o", config_.qkvoBias),
            affine("mlp.fc1", config_.ffBias),  affine("mlp.fc2", config_.ffBias)};
  if (config_.timestep == LoopedTimestep::Tmlt)
    time_ = {affine("timestep.fc1", true), affine("timestep.fc2", true),
             affine("modulation", true)};
  readout_ = affine("readout", true);
}

LoopedModel LoopedModel::load(const std::string& path) {
  const LoadedWeights w = loadWeights(path, "looped");
  try {
    return LoopedModel(LoopedConfig::fromJson(w.config), w.tensors);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void LoopedModel::save(const std::string& path) const {
  saveWeights(path, kind(), config(), weights_);
}

LoopedModel LoopedModel::contextualMapping(const ContextualMappingParams& p) {
  LoopedConfig c;
  c.d = 5;
  c.heads = 1;
  c.headDim = 1;
  c.dFf = 3;
  c.loops = p.tokens;
  c.dOut = 1;
  c.timestep = LoopedTimestep::Plain;
  c.scoring = p.scoring;
  c.softmaxLambda = p.lambda;
  c.scaleRsqrtS = false;
  c.norm = LoopedNorm::None;
  c.activation = LoopedActivation::ReLU;
  c.task.tokens = p.tokens;
  c.task.idBase = static_cast<int>(p.base);
  const double B = p.base, M = p.bigM;
  auto t = [](const std::string& name, std::vector<int64_t> shape, std::vector<double> data) {
    return Tensor{name, std::move(shape), Tensor::F64, std::move(data)};
  };
  return LoopedModel(
      c, {t("attn.q.weight", {1, 5}, {0, 0, 1, 0, 0}),  // score_jn = a_j · 1
          t("attn.k.weight", {1, 5}, {0, 1, 0, 0, 0}), t("attn.v.weight", {1, 5}, {1, 0, 0, 0, 0}),
          t("attn.o.weight", {5, 1}, {0, 0, 0, 1, 0}),
          t("mlp.fc1.weight", {3, 5}, {0, 1, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}),
          t("mlp.fc1.bias", {3}, {p.eps, 0, 0}),
          t("mlp.fc2.weight", {5, 3}, {0, 0, 0, -M, 0, 0, 0, 0, 0, 0, -1, 0, 0, 1, B - 1}),
          t("mlp.fc2.bias", {5}, {0, 0, 0, 0, 0}), t("readout.weight", {1, 5}, {0, 0, 0, 0, 1}),
          t("readout.bias", {1}, {0})});
}

const Tensor& LoopedModel::weight(const std::string& name) const {
  for (const Tensor& t : weights_)
    if (t.name == name) return t;
  throw Error("looped: no weight \"" + name + "\"");
}

Modulation LoopedModel::modulation(int t) const {
  if (config_.timestep == LoopedTimestep::Plain) return Modulation::identity(config_.d);
  return timestepCode(t).mod;
}

TimestepCode LoopedModel::timestepCode(int t) const {
  if (config_.timestep != LoopedTimestep::Tmlt)
    throw Error("looped: no timestep encoding in \"plain\" mode");
  return seed_models::timestepCode(time_, t, config_.dFreq, config_.peLayout);
}

LoopedBlockWeights LoopedModel::effectiveWeights(int t) const {
  if (config_.baselineCompat)
    throw Error("looped: α cannot be folded into the weights with baseline_compat");
  return foldModulation(block_, modulation(t));
}

Sequence LoopedModel::readout(const Sequence& x) const {
  Sequence out;
  for (const Vector& r : x) out.push_back(readout_.apply(r));
  return out;
}

Sequence LoopedModel::run(const Sequence& input, Trace* trace) const {
  return run(input, config_.loops, trace);
}

Sequence LoopedModel::start(const Sequence& input, int loops) const {
  requireWidth("looped", input, config_.d);
  if (loops < 0) throw Error("looped: loops must be ≥ 0, got " + std::to_string(loops));
  return config_.x0Zero ? Sequence(input.size(), Vector(sz(config_.d), 0.0)) : input;
}

Sequence LoopedModel::loop(const Sequence& x, const Sequence& input, const Modulation& mod,
                           LoopedBlockRecord* record) const {
  Sequence in = x;
  if (config_.inject)  // Yang et al.'s injection: E re-added before every loop
    for (size_t n = 0; n < in.size(); ++n)
      for (size_t i = 0; i < in[n].size(); ++i) in[n][i] += input[n][i];
  return loopedBlock(in, block_, config_.blockOptions(), mod, record);
}

std::vector<Sequence> LoopedModel::trajectory(const Sequence& input, int loops) const {
  std::vector<Sequence> states{start(input, loops)};
  for (int t = 0; t < loops; ++t) states.push_back(loop(states.back(), input, modulation(t)));
  return states;
}

Sequence LoopedModel::run(const Sequence& input, int loops, Trace* trace) const {
  if (!trace) return readout(trajectory(input, loops).back());
  const bool tmlt = config_.timestep == LoopedTimestep::Tmlt;
  const int64_t r = loops, N = static_cast<int64_t>(input.size()), d = config_.d;
  std::vector<double> hidden, mid, attnBranch, mlpBranch, attention, alpha, gamma, pe, te, steps,
      readouts;
  Sequence x = start(input, loops);
  append(hidden, x);
  Sequence out = readout(x);
  for (int t = 0; t < loops; ++t) {
    Modulation mod = Modulation::identity(config_.d);
    if (tmlt) {
      const TimestepCode code = timestepCode(t);
      pe.insert(pe.end(), code.pe.begin(), code.pe.end());
      te.insert(te.end(), code.te.begin(), code.te.end());
      mod = code.mod;
    }
    LoopedBlockRecord rec;
    Sequence next = loop(x, input, mod, &rec);
    steps.push_back(distance(next, x));
    x = std::move(next);
    out = readout(x);
    append(hidden, x);
    append(mid, rec.mid);
    append(attnBranch, rec.attnBranch);
    append(mlpBranch, rec.mlpBranch);
    attention.insert(attention.end(), rec.probs.begin(), rec.probs.end());
    append(alpha, {mod.alpha1, mod.alpha2});
    append(gamma, {mod.gamma1, mod.gamma2});
    append(readouts, out);
  }
  trace->add("hidden", {r + 1, N, d}, std::move(hidden));
  trace->add("mid", {r, N, d}, std::move(mid));
  trace->add("attn_branch", {r, N, d}, std::move(attnBranch));
  trace->add("mlp_branch", {r, N, d}, std::move(mlpBranch));
  trace->add("attention", {r, config_.heads, N, N}, std::move(attention));
  trace->add("alpha", {r, 2, d}, std::move(alpha));
  trace->add("gamma", {r, 2, d}, std::move(gamma));
  if (tmlt) {
    trace->add("pe", {r, config_.dFreq}, std::move(pe));
    trace->add("te", {r, d}, std::move(te));
  }
  trace->add("step_norm", {r}, std::move(steps));
  trace->add("readout", {r, N, config_.dOut}, std::move(readouts));
  std::vector<double> flat;
  append(flat, out);
  trace->add("output", {N, config_.dOut}, std::move(flat));
  return out;
}

std::vector<std::string> LoopedModel::tasks() const { return loopedTaskNames(); }

LoopedTaskSample LoopedModel::taskSample(const std::string& task, uint64_t seed) const {
  return loopedTask(task, config_.task, config_.d, seed);
}

Sequence LoopedModel::taskInput(const std::string& task, uint64_t seed) const {
  return taskSample(task, seed).input;
}

}  // namespace lsrl::seed_models
