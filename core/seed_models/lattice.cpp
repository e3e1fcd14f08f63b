#include "core/seed_models/lattice.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/seed_models/dense_layers.h"
#include "core/seed_models/lattice_demos.h"
#include "core/seed_models/model_helpers.h"
#include "core/seed_models/scored_tasks.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr double kQkNormEps = 1e-6;  // §1.8: k / sqrt(kᵀk + 1e-6)

double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// wᵀx + b for the row of a matrix that starts at `w` (x.size() entries).
double affine(const double* w, const Vector& x, double b) {
  double s = b;
  for (size_t j = 0; j < x.size(); ++j) s += w[j] * x[j];
  return s;
}

// Head `head`'s rows of a per-head projection [H][rows][X] applied to x: W x + b.
Vector preactivation(const Tensor& w, const Tensor& b, int head, int rows, const Vector& x) {
  Vector out(sz(rows));
  for (int r = 0; r < rows; ++r) {
    const size_t row = sz(head) * sz(rows) + sz(r);
    out[sz(r)] = affine(w.data.data() + row * x.size(), x, b.data[row]);
  }
  return out;
}

Vector applyActivation(Vector z, const std::string& act) {
  for (double& v : z) {
    if (act == "silu") v *= sigmoid(v);
    if (act == "tanh") v = std::tanh(v);
  }
  return z;
}

// §1.8's causal depthwise conv over time of head `head`'s rows z [T][c] with w [H][c][K]:
// out_t[c] = Σ_{j<K} w[head][c][j] z_{t−j}[c], nothing before the first token.
Sequence causalConv(const Sequence& z, const Tensor& w, int head) {
  const size_t K = sz(w.shape[2]);
  Sequence out(z.size());
  for (size_t t = 0; t < z.size(); ++t) {
    out[t].assign(z[t].size(), 0.0);
    for (size_t c = 0; c < z[t].size(); ++c) {
      const double* taps = w.data.data() + (sz(head) * z[t].size() + c) * K;
      for (size_t j = 0; j < K && j <= t; ++j) out[t][c] += taps[j] * z[t - j][c];
    }
  }
  return out;
}

void l2Normalise(Vector& v) {
  double n2 = 0;
  for (const double x : v) n2 += x * x;
  const double inv = 1 / std::sqrt(n2 + kQkNormEps);
  for (double& x : v) x *= inv;
}

// Pairwise cosines of the slots (0 with a slot shorter than ε).
Vector slotCosines(const LatticeSlots& S, double eps) {
  const auto m = static_cast<size_t>(S.m);
  Vector norms(m), out(m * m, 0.0);
  for (size_t i = 0; i < m; ++i) {
    double n2 = 0;
    for (int j = 0; j < S.d; ++j) n2 += S.slot(i)[j] * S.slot(i)[j];
    norms[i] = std::sqrt(n2);
  }
  for (size_t a = 0; a < m; ++a)
    for (size_t b = 0; b < m; ++b) {
      if (norms[a] < eps || norms[b] < eps) continue;
      double g = 0;
      for (int j = 0; j < S.d; ++j) g += S.slot(a)[j] * S.slot(b)[j];
      out[a * m + b] = g / (norms[a] * norms[b]);
    }
  return out;
}

// Where layer `layer`'s mixer tensors are ("layers.<l>." with tokens).
std::string mixerPrefix(const LatticeConfig& c, int layer) {
  return c.tokens() ? "layers." + std::to_string(layer) + "." : "";
}

// One layer's mixer tensors, looked up once per call rather than per token.
struct MixerWeights {
  const Tensor *wK, *bK, *wV, *bV, *wQ, *bQ;
  const Tensor *wGamma = nullptr, *bGamma = nullptr, *wMu = nullptr, *bMu = nullptr;
  const Tensor *convK = nullptr, *convQ = nullptr;
  const Tensor *wG = nullptr, *bG = nullptr, *wO = nullptr, *bO = nullptr;
};

MixerWeights mixerWeights(const LatticeModel& model, int layer) {
  const LatticeConfig& c = model.settings();
  const std::string p = mixerPrefix(c, layer);
  auto at = [&](const char* name) { return &model.weight(p + name); };
  MixerWeights w{at("w_k"), at("b_k"), at("w_v"), at("b_v"), at("w_q"), at("b_q")};
  if (c.gammaMode == "sigmoid") {
    w.wGamma = at("w_gamma");
    w.bGamma = at("b_gamma");
  }
  if (c.muMode == "sigmoid") {
    w.wMu = at("w_mu");
    w.bMu = at("b_mu");
  }
  if (c.conv > 0) {
    w.convK = at("conv_k");
    w.convQ = at("conv_q");
  }
  if (c.gated()) {
    w.wG = at("w_g");
    w.bG = at("b_g");
    w.wO = at("w_o");
    w.bO = at("b_o");
  }
  return w;
}

// §1.8 [E]: W_o (y ⊙ GeLU(W_g u + b_g)) + b_o per token, y the heads' outputs side by side.
Sequence gatedOutput(const MixerWeights& w, const Sequence& u, const Sequence& mixed) {
  Sequence out(mixed.size());
  for (size_t t = 0; t < mixed.size(); ++t) {
    Vector gated = linear(*w.wG, w.bG, u[t]);
    for (size_t r = 0; r < gated.size(); ++r) gated[r] = mixed[t][r] * gelu(gated[r]);
    out[t] = linear(*w.wO, w.bO, gated);
  }
  return out;
}

Sequence normedRows(const LatticeModel& model, const std::string& name, const Sequence& rows) {
  const Tensor &gain = model.weight(name + ".weight"), &bias = model.weight(name + ".bias");
  Sequence out;
  out.reserve(rows.size());
  for (const Vector& r : rows) out.push_back(layerNorm(gain, bias, r));
  return out;
}

}  // namespace

std::string latticeTracePrefix(int layer, int head) {
  return (layer == 0 ? "" : "layer" + std::to_string(layer) + "/") +
         (head == 0 ? "" : "head" + std::to_string(head) + "/");
}

int latticeDirectWidth(int m, int d) { return 2 * m + d + 2; }

Vector packLatticeToken(const LatticeToken& tok) {
  Vector row = tok.k;
  row.insert(row.end(), tok.v.begin(), tok.v.end());
  row.insert(row.end(), tok.q.begin(), tok.q.end());
  row.push_back(tok.gamma);
  row.push_back(tok.mu);
  return row;
}

LatticeModel::LatticeModel(const LatticeConfig& config) : config_(config) {
  if (config_.tokens()) config_.outputGate = true;  // implied (lattice.h)
  config_.validate();
  Rng rng(config_.seed);
  const bool fallback = config_.init == "identity" && config_.m > config_.d;
  if (fallback)
    warnings_.push_back("lattice: m = " + std::to_string(config_.m) +
                        " > d = " + std::to_string(config_.d) +
                        ": S_0 cannot be orthonormal; using seeded random unit slots");
  for (const auto& [name, shape] : latticeWeightSpecs(config_)) {
    // "w_k", "b_mu", "s0" (also under "layers.<l>."), or "weight" / "bias" of a dense layer.
    const std::string base = name.substr(name.rfind('.') + 1);
    if (base == "s0") {
      Tensor s0 = filled(name, shape, 0.0);
      for (int h = 0; h < config_.heads; ++h) {
        const LatticeSlots S = config_.init == "identity" && !fallback
                                   ? identitySlots(config_.d, config_.m)
                                   : randomOrthonormalSlots(config_.d, config_.m, rng);
        std::copy(S.data.begin(), S.data.end(), s0.data.begin() + h * S.data.size());
      }
      weights_.push_back(std::move(s0));
    } else if (name.find("norm") != std::string::npos) {
      weights_.push_back(filled(name, shape, base == "weight" ? 1.0 : 0.0));
    } else if (name == "embed.weight") {
      weights_.push_back(randomNormal(rng, name, shape, 1.0));
    } else if (base == "bias" || base[0] == 'b') {
      weights_.push_back(filled(name, shape, base == "b_mu" ? 3.0 : 0.0));
    } else {  // N(0, 1/fan_in); conv_k, conv_q: N(0, 1/K)
      weights_.push_back(randomNormal(rng, name, shape, 1 / std::sqrt(double(shape.back()))));
    }
  }
}

LatticeModel::LatticeModel(const LatticeConfig& config, const std::vector<Tensor>& weights)
    : config_(config) {
  if (config_.tokens()) config_.outputGate = true;
  config_.validate();
  weights_ =
      takeWeights({config_.toJson(), weights, "lattice weights"}, latticeWeightSpecs(config_));
}

LatticeModel LatticeModel::load(const std::string& path) {
  LoadedWeights w = loadWeights(path, "lattice");
  LatticeConfig config;
  try {
    config = LatticeConfig::fromJson(w.config);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  try {
    return LatticeModel(config, w.tensors);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void LatticeModel::save(const std::string& path) const {
  saveWeights(path, kind(), config(), weights_);
}

const Tensor& LatticeModel::weight(const std::string& name) const {
  for (const Tensor& t : weights_)
    if (t.name == name) return t;
  throw Error("lattice: no weight \"" + name + "\"");
}

int LatticeModel::inputWidth() const {
  return config_.input == "direct" ? config_.heads * latticeDirectWidth(config_.m, config_.d)
                                   : config_.dIn;
}

int LatticeModel::outputWidth() const {
  if (config_.tokens()) return config_.dOut > 0 ? config_.dOut : config_.dIn;
  return config_.outputGate ? config_.dIn : config_.heads * config_.d;
}

void LatticeModel::checkLayer(int layer) const {
  if (layer < 0 || layer >= config_.layerCount())
    throw Error("lattice: layer " + std::to_string(layer) + " out of range 0.." +
                std::to_string(config_.layerCount() - 1));
}

LatticeSlots LatticeModel::initialSlots(int head, int layer) const {
  checkLayer(layer);
  const size_t n = static_cast<size_t>(config_.m) * config_.d;
  const Tensor& s0 = weight(mixerPrefix(config_, layer) + "s0");
  const auto first = s0.data.begin() + static_cast<std::ptrdiff_t>(sz(head) * n);
  return LatticeSlots{config_.d, config_.m, Vector(first, first + static_cast<std::ptrdiff_t>(n))};
}

Sequence LatticeModel::embed(const Sequence& input) const {
  requireWidth("lattice", input, inputWidth());
  if (!config_.tokens()) return input;
  const Tensor& table = weight("embed.weight");
  Sequence x;
  x.reserve(input.size());
  for (const Vector& row : input) x.push_back(linear(table, nullptr, row));
  return x;
}

std::vector<LatticeToken> LatticeModel::headTokens(int layer, const Sequence& u, int head) const {
  checkLayer(layer);
  const int m = config_.m, d = config_.d;
  std::vector<LatticeToken> tokens;
  tokens.reserve(u.size());
  if (config_.input == "direct") {
    requireWidth("lattice", u, inputWidth());
    const auto w = static_cast<std::ptrdiff_t>(latticeDirectWidth(m, d));
    for (const Vector& x : u) {
      const auto p = x.begin() + head * w;
      tokens.push_back(LatticeToken{Vector(p, p + m), Vector(p + m, p + m + d),
                                    Vector(p + m + d, p + 2 * m + d), p[2 * m + d],
                                    p[2 * m + d + 1]});
    }
    return tokens;
  }
  requireWidth(config_.tokens() ? "lattice layer input" : "lattice", u, config_.mixerWidth());
  const MixerWeights w = mixerWeights(*this, layer);
  const std::string& act = config_.activation;
  Sequence kHat, qHat;
  for (const Vector& x : u) {
    kHat.push_back(preactivation(*w.wK, *w.bK, head, m, x));
    qHat.push_back(preactivation(*w.wQ, *w.bQ, head, m, x));
  }
  if (w.convK) {  // §1.8: on the pre-activations, before act and qk_norm
    kHat = causalConv(kHat, *w.convK, head);
    qHat = causalConv(qHat, *w.convQ, head);
  }
  for (size_t t = 0; t < u.size(); ++t) {
    const Vector& x = u[t];
    LatticeToken tok{applyActivation(std::move(kHat[t]), act),
                     applyActivation(preactivation(*w.wV, *w.bV, head, d, x), act),
                     applyActivation(std::move(qHat[t]), act), config_.gamma, config_.mu};
    if (config_.qkNorm == "l2") {
      l2Normalise(tok.k);
      l2Normalise(tok.q);
    }
    if (w.wGamma)
      tok.gamma =
          sigmoid(affine(w.wGamma->data.data() + sz(head) * x.size(), x, w.bGamma->data[sz(head)]));
    if (w.wMu)
      tok.mu = sigmoid(affine(w.wMu->data.data() + sz(head) * x.size(), x, w.bMu->data[sz(head)]));
    tokens.push_back(std::move(tok));
  }
  return tokens;
}

std::vector<std::vector<LatticeToken>> LatticeModel::layerInputs(int layer,
                                                                 const Sequence& x) const {
  checkLayer(layer);
  Sequence normed;
  if (config_.tokens()) {
    requireWidth("lattice layer input", x, config_.dModel);
    normed = normedRows(*this, mixerPrefix(config_, layer) + "norm1", x);
  }
  std::vector<std::vector<LatticeToken>> tokens;
  for (int h = 0; h < config_.heads; ++h)
    tokens.push_back(headTokens(layer, config_.tokens() ? normed : x, h));
  return tokens;
}

Sequence LatticeModel::layerOutput(int layer, const Sequence& x, const Sequence& mixed) const {
  checkLayer(layer);
  requireSize("lattice layer output: rows", x.size(), mixed.size());
  requireWidth("lattice layer output", mixed, config_.heads * config_.d);
  if (!config_.gated()) return mixed;
  const MixerWeights w = mixerWeights(*this, layer);
  if (!config_.tokens()) return gatedOutput(w, x, mixed);
  // §1.8a: x + gated mixer of LN(x), then x + W_2 GeLU(W_1 LN(x) + b_1) + b_2.
  requireWidth("lattice layer input", x, config_.dModel);
  const std::string p = mixerPrefix(config_, layer);
  Sequence out = x;
  addInto(out, gatedOutput(w, normedRows(*this, p + "norm1", x), mixed));
  if (config_.dFf == 0) return out;
  const Tensor &w1 = weight(p + "ff1.weight"), &b1 = weight(p + "ff1.bias");
  const Tensor &w2 = weight(p + "ff2.weight"), &b2 = weight(p + "ff2.bias");
  const Sequence u = normedRows(*this, p + "norm2", out);
  for (size_t t = 0; t < out.size(); ++t) {
    Vector hidden = linear(w1, &b1, u[t]);
    for (double& v : hidden) v = gelu(v);
    const Vector f = linear(w2, &b2, hidden);
    for (size_t i = 0; i < f.size(); ++i) out[t][i] += f[i];
  }
  return out;
}

Sequence LatticeModel::head(const Sequence& x) const {
  if (!config_.tokens()) return x;
  requireWidth("lattice head input", x, config_.dModel);
  const Tensor &w = weight("head.weight"), &b = weight("head.bias");
  Sequence out;
  out.reserve(x.size());
  for (const Vector& r : normedRows(*this, "norm_f", x)) out.push_back(linear(w, &b, r));
  return out;
}

Sequence LatticeModel::run(const Sequence& input, Trace* trace) const {
  const int H = config_.heads, d = config_.d;
  Sequence x = embed(input);
  for (int l = 0; l < config_.layerCount(); ++l) {
    const std::vector<std::vector<LatticeToken>> tokens = layerInputs(l, x);
    Sequence mixed(x.size(), Vector(sz(H) * sz(d)));
    std::vector<std::vector<LatticeStepOut>> steps(sz(H));
    std::vector<std::vector<LatticeSlots>> slots(sz(H));
    for (int h = 0; h < H; ++h) {
      const Sequence y =
          latticeRecurrence(initialSlots(h, l), tokens[sz(h)], config_.options, config_.chunk,
                            trace ? &steps[sz(h)] : nullptr, trace ? &slots[sz(h)] : nullptr);
      for (size_t t = 0; t < y.size(); ++t)
        std::copy(y[t].begin(), y[t].end(), mixed[t].begin() + h * d);
    }
    if (trace) addLayerTrace(*trace, l, tokens, steps, slots, mixed);
    x = layerOutput(l, x, mixed);
  }
  Sequence out = head(x);
  if (trace) trace->add("output", {int64_t(out.size()), outputWidth()}, flatten(out));
  return out;
}

void LatticeModel::addLayerTrace(Trace& trace, int layer,
                                 const std::vector<std::vector<LatticeToken>>& tokens,
                                 const std::vector<std::vector<LatticeStepOut>>& steps,
                                 const std::vector<std::vector<LatticeSlots>>& slots,
                                 const Sequence& mixed) const {
  const auto H = sz(config_.heads);
  requireSize("lattice layer trace: heads' tokens", H, tokens.size());
  requireSize("lattice layer trace: heads' steps", H, steps.size());
  requireSize("lattice layer trace: heads' slots", H, slots.size());
  for (size_t h = 0; h < H; ++h)
    addHeadTrace(trace, latticeTracePrefix(layer, static_cast<int>(h)),
                 initialSlots(static_cast<int>(h), layer), tokens[h], steps[h], slots[h]);
  if (config_.outputGate && !config_.tokens())
    trace.add("mixer_output", {int64_t(mixed.size()), int64_t(H) * config_.d}, flatten(mixed));
}

void LatticeModel::addHeadTrace(Trace& trace, const std::string& p, const LatticeSlots& initial,
                                const std::vector<LatticeToken>& tokens,
                                const std::vector<LatticeStepOut>& steps,
                                const std::vector<LatticeSlots>& slots) const {
  const int64_t T = static_cast<int64_t>(steps.size()), m = config_.m, d = config_.d;
  auto gather = [&](auto field) {
    Vector v;
    for (const LatticeStepOut& s : steps) {
      const Vector& f = s.*field;
      v.insert(v.end(), f.begin(), f.end());
    }
    return v;
  };
  Vector all, norms, cosines, lossBefore, lossAfter, gamma, mu, k, v, q;
  for (const LatticeSlots& S : slots) {
    all.insert(all.end(), S.data.begin(), S.data.end());
    for (int i = 0; i < S.m; ++i) {
      double n2 = 0;
      for (int j = 0; j < S.d; ++j) n2 += S.slot(i)[j] * S.slot(i)[j];
      norms.push_back(std::sqrt(n2));
    }
    const Vector c = slotCosines(S, config_.options.eps);
    cosines.insert(cosines.end(), c.begin(), c.end());
  }
  for (size_t t = 0; t < steps.size(); ++t) {
    lossBefore.push_back(steps[t].lossBefore);
    lossAfter.push_back(steps[t].lossAfter);
    gamma.push_back(tokens[t].gamma);
    mu.push_back(tokens[t].mu);
    k.insert(k.end(), tokens[t].k.begin(), tokens[t].k.end());
    v.insert(v.end(), tokens[t].v.begin(), tokens[t].v.end());
    q.insert(q.end(), tokens[t].q.begin(), tokens[t].q.end());
  }
  trace.add(p + "slots", {T, m, d}, std::move(all));
  trace.add(p + "slots_initial", {m, d}, initial.data);
  trace.add(p + "incoming", {T, d}, gather(&LatticeStepOut::incoming));
  trace.add(p + "parallel", {T, m, d}, gather(&LatticeStepOut::parallel));
  trace.add(p + "orthogonal", {T, m, d}, gather(&LatticeStepOut::orthogonal));
  trace.add(p + "delta", {T, m, d}, gather(&LatticeStepOut::delta));
  trace.add(p + "write_strength", {T, m}, gather(&LatticeStepOut::writeStrength));
  trace.add(p + "slot_norms", {T, m}, std::move(norms));
  trace.add(p + "slot_cosines", {T, m, m}, std::move(cosines));
  trace.add(p + "beta", {T, m}, gather(&LatticeStepOut::beta));
  trace.add(p + "theta", {T, m}, gather(&LatticeStepOut::theta));
  trace.add(p + "cos_in", {T, m}, gather(&LatticeStepOut::cosIn));
  trace.add(p + "perp_frac", {T, m}, gather(&LatticeStepOut::perpFrac));
  trace.add(p + "pre_norms", {T, m}, gather(&LatticeStepOut::preNorm));
  trace.add(p + "guarded", {T, m}, gather(&LatticeStepOut::guarded));
  // The error's width is the form's: d (DEC-like), m (ENC) or none.
  const LatticeOptions& o = config_.options;
  const bool enc = latticeIsOrthogonal(o.mode) && o.variant == LatticeVariant::Enc;
  const bool none = (latticeIsOrthogonal(o.mode) && o.variant == LatticeVariant::Sim) ||
                    o.mode == LatticeMode::LinearAttention || o.mode == LatticeMode::Mamba2;
  if (!none) trace.add(p + "error", {T, enc ? m : d}, gather(&LatticeStepOut::error));
  trace.add(p + "loss_before", {T}, std::move(lossBefore));
  trace.add(p + "loss_after", {T}, std::move(lossAfter));
  trace.add(p + "k", {T, m}, std::move(k));
  trace.add(p + "v", {T, d}, std::move(v));
  trace.add(p + "q", {T, m}, std::move(q));
  trace.add(p + "gamma", {T}, std::move(gamma));
  trace.add(p + "mu", {T}, std::move(mu));
  trace.add(p + "y", {T, d}, gather(&LatticeStepOut::y));
}

std::vector<std::string> LatticeModel::tasks() const {
  if (config_.tokens()) return {"mqar", "char_lm"};
  std::vector<std::string> names = latticeDemoNames();
  if (recallParams()) names.push_back("assoc_recall");
  return names;
}

std::optional<AssocRecallParams> LatticeModel::recallParams() const {
  const int values = config_.heads * config_.d;
  if (config_.input != "projected" || config_.outputGate ||
      config_.dIn - values < config_.recallPairs)
    return std::nullopt;
  return AssocRecallParams{config_.dIn - values, values, config_.recallPairs,
                           config_.recallQueries};
}

Sequence LatticeModel::taskInput(const std::string& task, uint64_t seed) const {
  if (task == "mqar" || task == "char_lm") {
    if (!config_.tokens())
      throw Error("lattice: task \"" + task + "\" needs input \"tokens\" (one-hot rows)");
    // The scored tasks own these generators: scoredSample builds a token model's sample
    // itself (scored_tasks.cpp, tokenTaskSample), never through taskInput.
    return scoredSample(*this, task, seed).input;
  }
  if (config_.tokens())
    throw Error("lattice: unknown task \"" + task +
                "\" for input \"tokens\" (known: mqar, char_lm)");
  if (task == "assoc_recall") {
    const std::optional<AssocRecallParams> p = recallParams();
    if (!p)
      throw Error(
          "lattice: task \"assoc_recall\" needs projected input, no output gate and at "
          "least recall_pairs = " +
          std::to_string(config_.recallPairs) +
          " key channels beside the heads·d = " + std::to_string(config_.heads * config_.d) +
          " value channels (d_in = " + std::to_string(config_.dIn) + ")");
    return assocRecallSample(*p, seed).rows;
  }
  Sequence rows;
  if (config_.input == "projected") {
    for (LatticeToken& tok : latticeDemo(task, config_.m, config_.dIn, seed))
      rows.push_back(std::move(tok.v));
    return rows;
  }
  for (int h = 0; h < config_.heads; ++h) {
    const std::vector<LatticeToken> tokens = latticeDemo(task, config_.m, config_.d, seed + h);
    rows.resize(tokens.size());
    for (size_t t = 0; t < tokens.size(); ++t) {
      const Vector packed = packLatticeToken(tokens[t]);
      rows[t].insert(rows[t].end(), packed.begin(), packed.end());
    }
  }
  return rows;
}

}  // namespace lsrl::seed_models
