#include "core/seed_models/lattice.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/io/json_util.h"
#include "core/seed_models/dense_layers.h"
#include "core/seed_models/lattice_demos.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using Json = nlohmann::json;

constexpr double kMaxLatticeElements = 1e6;

[[noreturn]] void badKey(const std::string& key, const std::string& why) {
  throw Error("lattice config: \"" + key + "\" " + why);
}

int getInt(const Json& j, const std::string& key, int fallback) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  long long x = 0;  // an unsigned 2^63 is no int64_t: io::jsonInteger refuses it
  if (!io::jsonInteger(v, x) || x < 1 || x > kMaxLatticeElements)
    badKey(key, "must be an integer between 1 and 1000000, got " + io::describeJson(v));
  return static_cast<int>(x);
}

double getNumber(const Json& j, const std::string& key, double fallback) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    badKey(key, "must be a finite number, got " + io::describeJson(v));
  return v.get<double>();
}

std::string getName(const Json& j, const std::string& key, const std::string& fallback) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) badKey(key, "must be a string, got " + io::describeJson(j[key]));
  return j[key].get<std::string>();
}

void requireOneOf(const std::string& key, const std::string& value,
                  const std::vector<std::string>& allowed) {
  std::string list;
  for (const std::string& a : allowed) {
    if (value == a) return;
    list += (list.empty() ? "" : ", ") + a;
  }
  badKey(key, "is \"" + value + "\", expected one of " + list);
}

// One of an enum's names (E(0) .. E(count − 1)), or the fallback when the key is missing.
template <class E>
E getEnum(const Json& j, const std::string& key, E fallback, int count, const char* (*name)(E)) {
  const std::string value = getName(j, key, name(fallback));
  std::vector<std::string> allowed;
  for (int i = 0; i < count; ++i) {
    if (value == name(static_cast<E>(i))) return static_cast<E>(i);
    allowed.emplace_back(name(static_cast<E>(i)));
  }
  requireOneOf(key, value, allowed);  // throws
  return fallback;
}

// The tensors a config needs, in file order.
std::vector<WeightSpec> weightSpecs(const LatticeConfig& c) {
  const int64_t H = c.heads, m = c.m, d = c.d, x = c.dIn;
  std::vector<WeightSpec> s;
  if (c.input == "projected") {
    s = {{"w_k", {H, m, x}}, {"b_k", {H, m}},    {"w_v", {H, d, x}},
         {"b_v", {H, d}},    {"w_q", {H, m, x}}, {"b_q", {H, m}}};
    if (c.gammaMode == "sigmoid") {
      s.push_back({"w_gamma", {H, x}});
      s.push_back({"b_gamma", {H}});
    }
    if (c.muMode == "sigmoid") {
      s.push_back({"w_mu", {H, x}});
      s.push_back({"b_mu", {H}});
    }
  }
  s.push_back({"s0", {H, m, d}});
  if (c.outputGate) {
    s.push_back({"w_g", {H * d, x}});
    s.push_back({"b_g", {H * d}});
    s.push_back({"w_o", {x, H * d}});
    s.push_back({"b_o", {x}});
  }
  return s;
}

double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// wᵀx + b for the row of a matrix that starts at `w` (x.size() entries).
double affine(const double* w, const Vector& x, double b) {
  double s = b;
  for (size_t j = 0; j < x.size(); ++j) s += w[j] * x[j];
  return s;
}

Vector linear(const Tensor& w, const Tensor& b, int head, int rows, const Vector& x,
              const std::string& act) {
  Vector out(rows);
  const size_t cols = x.size();
  for (int r = 0; r < rows; ++r) {
    const size_t row = static_cast<size_t>(head) * rows + r;
    double z = affine(w.data.data() + row * cols, x, b.data[row]);
    if (act == "silu") z *= sigmoid(z);
    if (act == "tanh") z = std::tanh(z);
    out[r] = z;
  }
  return out;
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

}  // namespace

Json LatticeConfig::toJson() const {
  return {{"heads", heads},
          {"d_in", dIn},
          {"d", d},
          {"m", m},
          {"seed", seed},
          {"input", input},
          {"mode", latticeModeName(options.mode)},
          {"variant", latticeVariantName(options.variant)},
          {"beta", latticeBetaName(options.beta)},
          {"lambda", options.lambda},
          {"eps", options.eps},
          {"chunk", chunk},
          {"init", init},
          {"gamma_mode", gammaMode},
          {"gamma", gamma},
          {"mu_mode", muMode},
          {"mu", mu},
          {"activation", activation},
          {"output_gate", outputGate},
          {"recall_pairs", recallPairs},
          {"recall_queries", recallQueries}};
}

LatticeConfig LatticeConfig::fromJson(const Json& json) {
  if (!json.is_object())
    throw Error("lattice config: expected a JSON object, got " + io::describeJson(json));
  const LatticeConfig def;
  const Json known = def.toJson();
  for (const auto& [key, value] : json.items())
    if (!known.contains(key)) badKey(key, "is not a lattice config key");
  LatticeConfig c;
  c.heads = getInt(json, "heads", def.heads);
  c.dIn = getInt(json, "d_in", def.dIn);
  c.d = getInt(json, "d", def.d);
  c.m = getInt(json, "m", def.m);
  if (json.contains("seed")) {
    const auto& seed = json["seed"];
    if (!seed.is_number_integer() || (!seed.is_number_unsigned() && seed.get<long long>() < 0))
      badKey("seed", "must be a non-negative integer, got " + io::describeJson(json["seed"]));
    c.seed = json["seed"].get<uint64_t>();
  }
  c.input = getName(json, "input", def.input);
  c.options.mode = getEnum(json, "mode", def.options.mode, kLatticeModeCount, latticeModeName);
  c.options.variant =
      getEnum(json, "variant", def.options.variant, kLatticeVariantCount, latticeVariantName);
  c.options.beta = getEnum(json, "beta", def.options.beta, kLatticeBetaCount, latticeBetaName);
  c.options.lambda = getNumber(json, "lambda", def.options.lambda);
  c.options.eps = getNumber(json, "eps", def.options.eps);
  c.chunk = getInt(json, "chunk", def.chunk);
  c.init = getName(json, "init", def.init);
  c.gammaMode = getName(json, "gamma_mode", def.gammaMode);
  c.gamma = getNumber(json, "gamma", def.gamma);
  c.muMode = getName(json, "mu_mode", def.muMode);
  c.mu = getNumber(json, "mu", def.mu);
  c.activation = getName(json, "activation", def.activation);
  c.recallPairs = getInt(json, "recall_pairs", def.recallPairs);
  c.recallQueries = getInt(json, "recall_queries", def.recallQueries);
  if (json.contains("output_gate")) {
    if (!json["output_gate"].is_boolean())
      badKey("output_gate", "must be true or false, got " + io::describeJson(json["output_gate"]));
    c.outputGate = json["output_gate"].get<bool>();
  }
  c.validate();
  return c;
}

void LatticeConfig::validate() const {
  for (const auto& [key, v] : {std::pair<const char*, int>{"heads", heads},
                               {"d_in", dIn},
                               {"d", d},
                               {"m", m},
                               {"chunk", chunk}})
    if (v < 1 || v > kMaxLatticeElements)
      badKey(key, "must be between 1 and 1000000, got " + std::to_string(v));
  for (const auto& [key, v] : {std::pair<const char*, int>{"recall_pairs", recallPairs},
                               {"recall_queries", recallQueries}})
    if (v < 1 || v > kMaxLatticeElements)
      badKey(key, "must be between 1 and 1000000, got " + std::to_string(v));
  requireOneOf("input", input, {"projected", "direct"});
  requireOneOf("init", init, {"identity", "random_orthonormal"});
  requireOneOf("gamma_mode", gammaMode, {"sigmoid", "constant"});
  requireOneOf("mu_mode", muMode, {"constant", "sigmoid"});
  requireOneOf("activation", activation, {"none", "silu", "tanh"});
  if (!(options.eps > 0)) badKey("eps", "must be positive, got " + std::to_string(options.eps));
  if (!(options.lambda >= 0))
    badKey("lambda", "must be non-negative, got " + std::to_string(options.lambda));
  if (!(gamma >= 0) || !std::isfinite(gamma))
    badKey("gamma", "must be non-negative, got " + std::to_string(gamma));
  if (!(mu >= 0 && mu <= 1)) badKey("mu", "must be in [0, 1], got " + std::to_string(mu));
  if (chunk > 1 && options.mode != LatticeMode::Nosr && options.mode != LatticeMode::Osr)
    badKey("chunk", std::string("> 1 (the chunked approximation) needs mode nosr or osr, not ") +
                        latticeModeName(options.mode));
  if (outputGate && input == "direct")
    badKey("output_gate", "needs input \"projected\" (the gate reads the token x_t)");
  // The largest tensors (and a direct token) must stay small.
  const double H = heads, D = d, M = m, X = dIn;
  for (const auto& [what, n] : {std::pair<const char*, double>{"heads·m·d_in (w_k)", H * M * X},
                                {"heads·d·d_in (w_v)", H * D * X},
                                {"heads·m·d (s0)", H * M * D},
                                {"heads·(2m + d + 2) (direct token)", H * (2 * M + D + 2)}})
    if (n > kMaxLatticeElements)
      throw Error(std::string("lattice config: ") + what + " = " + std::to_string(int64_t(n)) +
                  " elements, more than 1000000");
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
  config_.validate();
  Rng rng(config_.seed);
  for (const auto& [name, shape] : weightSpecs(config_)) {
    if (name == "s0") {
      Tensor s0 = filled(name, shape, 0.0);
      const bool fallback = config_.init == "identity" && config_.m > config_.d;
      if (fallback)
        warnings_.push_back("lattice: m = " + std::to_string(config_.m) +
                            " > d = " + std::to_string(config_.d) +
                            ": S_0 cannot be orthonormal; using seeded random unit slots");
      for (int h = 0; h < config_.heads; ++h) {
        const LatticeSlots S = config_.init == "identity" && !fallback
                                   ? identitySlots(config_.d, config_.m)
                                   : randomOrthonormalSlots(config_.d, config_.m, rng);
        std::copy(S.data.begin(), S.data.end(), s0.data.begin() + h * S.data.size());
      }
      weights_.push_back(std::move(s0));
    } else if (name[0] == 'b') {
      weights_.push_back(filled(name, shape, name == "b_mu" ? 3.0 : 0.0));
    } else {
      weights_.push_back(randomNormal(rng, name, shape, 1 / std::sqrt(double(shape.back()))));
    }
  }
}

LatticeModel::LatticeModel(const LatticeConfig& config, const std::vector<Tensor>& weights)
    : config_(config) {
  config_.validate();
  weights_ = takeWeights({config_.toJson(), weights, "lattice weights"}, weightSpecs(config_));
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
  return config_.outputGate ? config_.dIn : config_.heads * config_.d;
}

LatticeSlots LatticeModel::initialSlots(int head) const {
  const size_t n = static_cast<size_t>(config_.m) * config_.d;
  const auto first = weight("s0").data.begin() + static_cast<std::ptrdiff_t>(head * n);
  return LatticeSlots{config_.d, config_.m, Vector(first, first + static_cast<std::ptrdiff_t>(n))};
}

std::vector<LatticeToken> LatticeModel::headTokens(const Sequence& input, int head) const {
  requireWidth("lattice", input, inputWidth());
  const int m = config_.m, d = config_.d;
  std::vector<LatticeToken> tokens;
  tokens.reserve(input.size());
  if (config_.input == "direct") {
    const auto w = static_cast<std::ptrdiff_t>(latticeDirectWidth(m, d));
    for (const Vector& x : input) {
      const auto p = x.begin() + head * w;
      tokens.push_back(LatticeToken{Vector(p, p + m), Vector(p + m, p + m + d),
                                    Vector(p + m + d, p + 2 * m + d), p[2 * m + d],
                                    p[2 * m + d + 1]});
    }
    return tokens;
  }
  const std::string& act = config_.activation;
  const auto dIn = static_cast<size_t>(config_.dIn);
  for (const Vector& x : input) {
    LatticeToken tok{linear(weight("w_k"), weight("b_k"), head, m, x, act),
                     linear(weight("w_v"), weight("b_v"), head, d, x, act),
                     linear(weight("w_q"), weight("b_q"), head, m, x, act), config_.gamma,
                     config_.mu};
    if (config_.gammaMode == "sigmoid")
      tok.gamma = sigmoid(
          affine(weight("w_gamma").data.data() + head * dIn, x, weight("b_gamma").data[head]));
    if (config_.muMode == "sigmoid")
      tok.mu =
          sigmoid(affine(weight("w_mu").data.data() + head * dIn, x, weight("b_mu").data[head]));
    tokens.push_back(std::move(tok));
  }
  return tokens;
}

Sequence LatticeModel::run(const Sequence& input, Trace* trace) const {
  requireWidth("lattice", input, inputWidth());
  const size_t T = input.size();
  const int H = config_.heads, d = config_.d;
  Sequence mixed(T, Vector(static_cast<size_t>(H) * d));
  for (int h = 0; h < H; ++h) {
    const std::vector<LatticeToken> tokens = headTokens(input, h);
    std::vector<LatticeStepOut> steps;
    std::vector<LatticeSlots> slots;
    const Sequence y = latticeRecurrence(initialSlots(h), tokens, config_.options, config_.chunk,
                                         trace ? &steps : nullptr, trace ? &slots : nullptr);
    for (size_t t = 0; t < T; ++t) std::copy(y[t].begin(), y[t].end(), mixed[t].begin() + h * d);
    if (trace) addHeadTrace(*trace, h, tokens, steps, slots);
  }
  const Sequence out = blockOutput(input, mixed);
  if (trace) {
    auto flat = [](const Sequence& s) {
      Vector v;
      for (const Vector& row : s) v.insert(v.end(), row.begin(), row.end());
      return v;
    };
    const auto T64 = static_cast<int64_t>(T);
    if (config_.outputGate) trace->add("mixer_output", {T64, int64_t(H) * d}, flat(mixed));
    trace->add("output", {T64, outputWidth()}, flat(out));
  }
  return out;
}

Sequence LatticeModel::blockOutput(const Sequence& input, const Sequence& mixed) const {
  Sequence out = mixed;
  if (!config_.outputGate) return out;
  // §1.8 [E]: out = W_o (y ⊙ GeLU(W_g x + b_g)) + b_o.
  const int hd = config_.heads * config_.d;
  for (size_t t = 0; t < mixed.size(); ++t) {
    Vector gated(hd);
    for (int r = 0; r < hd; ++r)
      gated[r] = mixed[t][r] *
                 gelu(affine(weight("w_g").data.data() + static_cast<size_t>(r) * config_.dIn,
                             input[t], weight("b_g").data[r]));
    out[t].assign(config_.dIn, 0.0);
    for (int r = 0; r < config_.dIn; ++r)
      out[t][r] = affine(weight("w_o").data.data() + static_cast<size_t>(r) * hd, gated,
                         weight("b_o").data[r]);
  }
  return out;
}

void LatticeModel::addHeadTrace(Trace& trace, int head, const std::vector<LatticeToken>& tokens,
                                const std::vector<LatticeStepOut>& steps,
                                const std::vector<LatticeSlots>& slots) const {
  const std::string p = head == 0 ? "" : "head" + std::to_string(head) + "/";
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
  trace.add(p + "slots_initial", {m, d}, initialSlots(head).data);
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
