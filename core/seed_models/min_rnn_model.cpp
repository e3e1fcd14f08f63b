#include "core/seed_models/min_rnn_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/seed_models/dense_layers.h"
#include "core/seed_models/memory_horizon.h"  // oneHot
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"
#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr double kHoldGate = 20;  // σ(±20) is 1 − 2e-9 or 2e-9: open or shut

// The cell's recurrence from the pre-activations of its Linears (minRnnGateLinears' order,
// then "h"; each [T][width]).
MinRnnGates cellGates(MinRnnCell cell, const std::vector<std::vector<double>>& pre, int width) {
  if (cell == MinRnnCell::Gru) return minGruGates(pre.at(0), pre.at(1), width);
  return minLstmGates(pre.at(0), pre.at(1), pre.at(2), width);
}

// The gate arrays the cell adds to a trace, each name prefixed.
void traceCell(MinRnnCell cell, Trace& trace, const std::string& prefix,
               const std::vector<std::vector<double>>& pre, const MinRnnGates& gates) {
  if (cell == MinRnnCell::Gru)
    traceMinGruCell(trace, prefix, pre, gates);
  else
    traceMinLstmCell(trace, prefix, pre, gates);
}

double maxAbsDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = std::abs(a[i] - b[i]);
    if (std::isnan(e) && !(std::isnan(a[i]) && std::isnan(b[i])))
      return std::numeric_limits<double>::quiet_NaN();  // one mode finite, the other not
    if (e > d) d = e;
  }
  return d;
}

// §4.3: PyTorch's defaults (see the header comment).
Tensor initial(Rng& rng, const MinRnnWeightSpec& s, const std::vector<MinRnnWeightSpec>& specs) {
  const std::string& n = s.name;
  if (n == "embed.weight") return randomNormal(rng, n, s.shape, 1.0);
  if (n.find(".norm.") != std::string::npos)
    return filled(n, s.shape, endsWith(n, ".weight") ? 1 : 0);
  // A bias takes its Linear's fan-in (the weight listed just before it).
  const std::string base = n.substr(0, n.rfind('.'));
  const auto weight = std::find_if(specs.begin(), specs.end(), [&](const MinRnnWeightSpec& w) {
    return w.name == base + ".weight";
  });
  const double bound = 1 / std::sqrt(static_cast<double>(weight->shape[1]));
  return randomUniform(rng, n, s.shape, -bound, bound);
}

void prefixErrors(const std::string& path, const auto& f) {
  try {
    f();
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace

MinRnnModel::MinRnnModel(MinRnnCell cell, const MinRnnConfig& config)
    : cell_(cell), config_(config) {
  config_.validate(cell);
  Rng rng(config.seed);
  const std::vector<MinRnnWeightSpec> specs = minRnnWeightSpecs(config, cell);
  for (const MinRnnWeightSpec& s : specs) weights_.push_back(initial(rng, s, specs));
}

MinRnnModel::MinRnnModel(MinRnnCell cell, const MinRnnConfig& config,
                         const std::vector<Tensor>& weights)
    : cell_(cell), config_(config) {
  config_.validate(cell);
  weights_ =
      takeWeights({config.toJson(), weights, kind() + " weights"}, minRnnWeightSpecs(config, cell));
}

std::pair<MinRnnConfig, std::vector<Tensor>> MinRnnModel::loadParts(MinRnnCell cell,
                                                                    const std::string& path) {
  const LoadedWeights w = loadWeights(path, minRnnCellKind(cell));
  MinRnnConfig config;
  prefixErrors(path, [&] { config = MinRnnConfig::fromJson(w.config, cell); });
  // The shapes are checked here too, so that their errors name the file.
  prefixErrors(path, [&] {
    for (const MinRnnWeightSpec& s : minRnnWeightSpecs(config, cell)) w.get(s.name, s.shape);
  });
  return {config, w.tensors};
}

std::pair<MinRnnConfig, std::vector<Tensor>> MinRnnModel::holdParts(MinRnnCell cell,
                                                                    const SelectiveCopyParams& p) {
  checkSelectiveCopyParams(p);
  MinRnnConfig c;
  c.task = p;
  c.dModel = c.dh = c.dOut = p.vocabulary;
  c.variant = MinRnnVariant::Vanilla;
  c.layerNorm = c.residual = false;
  const int64_t V = p.vocabulary;
  auto identity = [&](const std::string& name) {
    Tensor t = filled(name, {V, V}, 0.0);
    for (size_t i = 0; i < sz(V); ++i) t.data[i * sz(V) + i] = 1;
    return t;
  };
  std::vector<Tensor> w = {identity("embed.weight")};
  for (const std::string& gate : minRnnGateLinears(cell)) {
    // Every unit's gate reads the token id: z and i open on data, f shuts on data.
    const double open = gate == "f" ? -kHoldGate : kHoldGate;
    Tensor t = filled("layers.0." + gate + ".weight", {V, V}, 0.0);
    for (size_t i = 0; i < sz(V); ++i)
      for (size_t token = 0; token < sz(V); ++token) {
        const bool data = token >= 1 && token <= sz(p.dataValues());
        t.data[i * sz(V) + token] = data ? open : -open;
      }
    w.push_back(t);
    w.push_back(filled("layers.0." + gate + ".bias", {V}, 0.0));
  }
  for (const std::string name : {"layers.0.h", "layers.0.out", "head"}) {
    w.push_back(identity(name + ".weight"));
    w.push_back(filled(name + ".bias", {V}, 0.0));
  }
  return {c, w};
}

void MinRnnModel::save(const std::string& path) const {
  saveWeights(path, kind(), config(), weights_);
}

const Tensor& MinRnnModel::weight(const std::string& name) const {
  for (const Tensor& t : weights_)
    if (t.name == name) return t;
  throw Error(kind() + ": no weight \"" + name + "\"");
}

MinRnnGates MinRnnModel::layerGates(int layer, const Sequence& u,
                                    std::vector<std::vector<double>>* pre) const {
  if (layer < 0 || layer >= config_.layers)
    throw Error(kind() + ": layer " + std::to_string(layer) + " out of range 0.." +
                std::to_string(config_.layers - 1));
  requireWidth(kind() + " layer input", u, config_.dModel);
  const std::string p = "layers." + std::to_string(layer) + ".";
  std::vector<std::string> names = minRnnGateLinears(cell_);
  names.push_back("h");
  std::vector<std::vector<double>> values(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const Tensor& W = weight(p + names[i] + ".weight");
    const Tensor& b = weight(p + names[i] + ".bias");
    for (const Vector& row : u) {
      const Vector y = linear(W, &b, row);
      values[i].insert(values[i].end(), y.begin(), y.end());
    }
  }
  MinRnnGates gates = cellGates(cell_, values, config_.dh);
  if (pre) *pre = std::move(values);
  return gates;
}

Sequence MinRnnModel::run(const Sequence& input, Trace* trace) const {
  return run(input, config_.mode, trace);
}

Sequence MinRnnModel::embed(const Sequence& input) const {
  requireWidth(kind(), input, inputWidth());
  Sequence x;
  for (const Vector& row : input) x.push_back(linear(weight("embed.weight"), nullptr, row));
  return x;
}

Sequence MinRnnModel::layerInput(int layer, const Sequence& x) const {
  if (!config_.layerNorm) return x;
  const std::string p = "layers." + std::to_string(layer) + ".";
  Sequence u;
  for (const Vector& r : x)
    u.push_back(layerNorm(weight(p + "norm.weight"), weight(p + "norm.bias"), r));
  return u;
}

Sequence MinRnnModel::layerOutput(int layer, const Sequence& x,
                                  const std::vector<double>& h) const {
  const size_t T = x.size(), H = sz(config_.dh), D = sz(config_.dModel);
  requireSize(kind() + " layer states", T * H, h.size());
  const std::string p = "layers." + std::to_string(layer) + ".";
  Sequence o(T);
  for (size_t t = 0; t < T; ++t) {
    const Vector ht(h.begin() + static_cast<ptrdiff_t>(t * H),
                    h.begin() + static_cast<ptrdiff_t>((t + 1) * H));
    o[t] = linear(weight(p + "out.weight"), &weight(p + "out.bias"), ht);
    if (config_.residual)
      for (size_t i = 0; i < D; ++i) o[t][i] += x[t][i];
  }
  return o;
}

Sequence MinRnnModel::head(const Sequence& x) const {
  Sequence out;
  for (const Vector& r : x) out.push_back(linear(weight("head.weight"), &weight("head.bias"), r));
  return out;
}

std::vector<double> MinRnnModel::initialState() const {
  return minRnnInitialState(std::vector<double>(sz(config_.dh), 0.0), config_.variant);
}

void MinRnnModel::addLayerTrace(Trace& trace, int layer,
                                const std::vector<std::vector<double>>& pre,
                                const MinRnnGates& gates, const std::vector<double>& h,
                                const Sequence& x) const {
  const int64_t T = gates.steps, H = config_.dh, D = config_.dModel;
  const std::vector<double> h0 = initialState();
  // The arrays of the explorer's views (§5.3), listed in the header comment.
  const std::string tp = layer == 0 ? "" : "layer" + std::to_string(layer) + ".";
  traceCell(cell_, trace, tp, pre, gates);
  trace.add(tp + "h_pre", {T, H}, gates.candidate);
  trace.add(tp + "h_tilde", {T, H}, minRnnCandidates(gates, config_.variant));
  trace.add(tp + "h0", {H}, h0);
  trace.add(tp + "hidden", {T, H}, h);
  if (T <= kMinRnnTraceAttentionMaxSteps) {
    trace.add(tp + "attention", {H, T, T + 1}, minRnnAttention(gates));
    trace.add(tp + "retention", {H, T, T + 1}, minRnnRetention(gates));
  }
  const std::vector<double> sequential = minRnnSequential(gates, config_.variant, h0);
  const bool logSpace = config_.variant == MinRnnVariant::Log;
  trace.add(tp + "mode_difference", {2},
            {maxAbsDifference(minRnnParallel(gates, config_.variant, h0), sequential),
             logSpace ? maxAbsDifference(minRnnLogSpace(gates, config_.variant, h0), sequential)
                      : std::numeric_limits<double>::quiet_NaN()});
  trace.add(tp + "layer_output", {T, D}, flatten(x));
}

Sequence MinRnnModel::run(const Sequence& input, MinRnnMode mode, Trace* trace) const {
  requireWidth(kind(), input, inputWidth());
  if (mode == MinRnnMode::LogSpace && config_.variant != MinRnnVariant::Log)
    throw Error(kind() + ": the log_space mode needs the \"log\" variant (this model is " +
                minRnnVariantName(config_.variant) + ")");
  Sequence x = embed(input);
  const std::vector<double> h0 = initialState();
  for (int l = 0; l < config_.layers; ++l) {
    std::vector<std::vector<double>> pre;
    const MinRnnGates gates = layerGates(l, layerInput(l, x), &pre);
    const std::vector<double> h = minRnnRun(gates, config_.variant, mode, h0);
    x = layerOutput(l, x, h);
    if (trace) addLayerTrace(*trace, l, pre, gates, h, x);
  }
  const Sequence out = head(x);
  if (trace) trace->add("output", {static_cast<int64_t>(out.size()), config_.dOut}, flatten(out));
  return out;
}

std::vector<std::string> MinRnnModel::tasks() const { return {"selective_copy", "hold"}; }

Sequence MinRnnModel::taskInput(const std::string& task, uint64_t seed) const {
  if (task == "selective_copy")
    return oneHot(selectiveCopySample(config_.task, seed).tokens, config_.task.vocabulary);
  if (task == "hold") return oneHot(holdTokens(config_.task, seed), config_.task.vocabulary);
  throw Error(kind() + ": unknown task \"" + task + "\" (known: selective_copy, hold)");
}

std::vector<int> MinRnnModel::taskTargets(const std::string& task, uint64_t seed) const {
  if (task == "selective_copy") return selectiveCopySample(config_.task, seed).targets;
  if (task == "hold") return holdTargets(holdTokens(config_.task, seed), config_.task);
  throw Error(kind() + ": unknown task \"" + task + "\" (known: selective_copy, hold)");
}

}  // namespace lsrl::seed_models
