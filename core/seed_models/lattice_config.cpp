// LatticeConfig's JSON form, its checks and the weight tensors a config implies (lattice.h).
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/io/json_util.h"
#include "core/seed_models/lattice.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using Json = nlohmann::json;

constexpr double kMaxLatticeElements = 1e6;
constexpr int kMaxLatticeLayers = 1000;

[[noreturn]] void badKey(const std::string& key, const std::string& why) {
  throw Error("lattice config: \"" + key + "\" " + why);
}

// An integer in [lo, 1e6] (sizes lo = 1; counts that may be none lo = 0).
int getInt(const Json& j, const std::string& key, int fallback, int lo = 1) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  long long x = 0;  // an unsigned 2^63 is no int64_t: io::jsonInteger refuses it
  if (!io::jsonInteger(v, x) || x < lo || x > kMaxLatticeElements)
    badKey(key, "must be an integer between " + std::to_string(lo) + " and 1000000, got " +
                    io::describeJson(v));
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

// The mixer's tensors (§1.10) under `p`, reading rows of width x.
void addMixerSpecs(std::vector<WeightSpec>& s, const LatticeConfig& c, const std::string& p,
                   int64_t x) {
  const int64_t H = c.heads, m = c.m, d = c.d;
  for (WeightSpec spec : std::vector<WeightSpec>{{"w_k", {H, m, x}},
                                                 {"b_k", {H, m}},
                                                 {"w_v", {H, d, x}},
                                                 {"b_v", {H, d}},
                                                 {"w_q", {H, m, x}},
                                                 {"b_q", {H, m}}}) {
    spec.name = p + spec.name;
    s.push_back(std::move(spec));
  }
  if (c.gammaMode == "sigmoid") {
    s.push_back({p + "w_gamma", {H, x}});
    s.push_back({p + "b_gamma", {H}});
  }
  if (c.muMode == "sigmoid") {
    s.push_back({p + "w_mu", {H, x}});
    s.push_back({p + "b_mu", {H}});
  }
  s.push_back({p + "s0", {H, m, d}});
  if (c.gated()) {
    s.push_back({p + "w_g", {H * d, x}});
    s.push_back({p + "b_g", {H * d}});
    s.push_back({p + "w_o", {x, H * d}});
    s.push_back({p + "b_o", {x}});
  }
  if (c.conv > 0) {  // last: the lists of configs without conv stay as they were
    s.push_back({p + "conv_k", {H, m, c.conv}});
    s.push_back({p + "conv_q", {H, m, c.conv}});
  }
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
          {"output_gate", gated()},  // tokens: implied, whatever the field says
          {"conv", conv},
          {"qk_norm", qkNorm},
          {"s0", s0},
          {"recall_pairs", recallPairs},
          {"recall_queries", recallQueries},
          {"d_model", dModel},
          {"layers", layers},
          {"d_ff", dFf},
          {"d_out", dOut},
          {"mqar_keys", mqarKeys},
          {"mqar_values", mqarValues},
          {"mqar_writes", mqarWrites},
          {"mqar_queries", mqarQueries},
          {"mqar_noise", mqarNoise},
          {"mqar_length", mqarLength},
          {"lm_context", lmContext},
          {"text", text}};
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
  c.conv = getInt(json, "conv", def.conv, 0);
  c.qkNorm = getName(json, "qk_norm", def.qkNorm);
  c.s0 = getName(json, "s0", def.s0);
  c.recallPairs = getInt(json, "recall_pairs", def.recallPairs);
  c.recallQueries = getInt(json, "recall_queries", def.recallQueries);
  c.dModel = getInt(json, "d_model", def.dModel);
  c.layers = getInt(json, "layers", def.layers);
  c.dFf = getInt(json, "d_ff", def.dFf, 0);
  c.dOut = getInt(json, "d_out", def.dOut, 0);
  c.mqarKeys = getInt(json, "mqar_keys", def.mqarKeys);
  c.mqarValues = getInt(json, "mqar_values", def.mqarValues);
  c.mqarWrites = getInt(json, "mqar_writes", def.mqarWrites);
  c.mqarQueries = getInt(json, "mqar_queries", def.mqarQueries, 0);
  c.mqarNoise = getInt(json, "mqar_noise", def.mqarNoise, 0);
  c.mqarLength = getInt(json, "mqar_length", def.mqarLength);
  c.lmContext = getInt(json, "lm_context", def.lmContext);
  c.text = getName(json, "text", def.text);
  if (json.contains("output_gate")) {
    if (!json["output_gate"].is_boolean())
      badKey("output_gate", "must be true or false, got " + io::describeJson(json["output_gate"]));
    c.outputGate = json["output_gate"].get<bool>();
    if (c.tokens() && !c.outputGate)
      badKey("output_gate", "is false, but input \"tokens\" has the gate in every layer");
  }
  if (c.tokens()) c.outputGate = true;  // implied: the config says what the model does
  c.validate();
  return c;
}

void LatticeConfig::validate() const {
  for (const auto& [key, v] : {std::pair<const char*, int>{"heads", heads},
                               {"d_in", dIn},
                               {"d", d},
                               {"m", m},
                               {"chunk", chunk},
                               {"recall_pairs", recallPairs},
                               {"recall_queries", recallQueries},
                               {"d_model", dModel},
                               {"mqar_keys", mqarKeys},
                               {"mqar_values", mqarValues},
                               {"mqar_writes", mqarWrites},
                               {"mqar_length", mqarLength},
                               {"lm_context", lmContext}})
    if (v < 1 || v > kMaxLatticeElements)
      badKey(key, "must be between 1 and 1000000, got " + std::to_string(v));
  for (const auto& [key, v] : {std::pair<const char*, int>{"conv", conv},
                               {"d_ff", dFf},
                               {"d_out", dOut},
                               {"mqar_queries", mqarQueries},
                               {"mqar_noise", mqarNoise}})
    if (v < 0 || v > kMaxLatticeElements)
      badKey(key, "must be between 0 and 1000000, got " + std::to_string(v));
  if (layers < 1 || layers > kMaxLatticeLayers)
    badKey("layers", "must be between 1 and " + std::to_string(kMaxLatticeLayers) + ", got " +
                         std::to_string(layers));
  requireOneOf("input", input, {"projected", "direct", "tokens"});
  requireOneOf("init", init, {"identity", "random_orthonormal"});
  requireOneOf("gamma_mode", gammaMode, {"sigmoid", "constant"});
  requireOneOf("mu_mode", muMode, {"constant", "sigmoid"});
  requireOneOf("activation", activation, {"none", "silu", "tanh"});
  requireOneOf("qk_norm", qkNorm, {"none", "l2"});
  requireOneOf("s0", s0, {"trained", "fixed"});
  if (!(options.eps > 0)) badKey("eps", "must be positive, got " + std::to_string(options.eps));
  if (!(options.lambda >= 0))
    badKey("lambda", "must be non-negative, got " + std::to_string(options.lambda));
  if (!(gamma >= 0) || !std::isfinite(gamma))
    badKey("gamma", "must be non-negative, got " + std::to_string(gamma));
  if (!(mu >= 0 && mu <= 1)) badKey("mu", "must be in [0, 1], got " + std::to_string(mu));
  if (chunk > 1 && options.mode != LatticeMode::Nosr && options.mode != LatticeMode::Osr)
    badKey("chunk", std::string("> 1 (the chunked approximation) needs mode nosr or osr, not ") +
                        latticeModeName(options.mode));
  if (input == "direct") {
    if (outputGate)
      badKey("output_gate", "needs input \"projected\" (the gate reads the token x_t)");
    if (conv > 0) badKey("conv", "needs input \"projected\" or \"tokens\" (a direct token is k̂)");
    if (qkNorm != "none")
      badKey("qk_norm", "needs input \"projected\" or \"tokens\" (a direct token is k itself)");
  }
  // The largest tensors (and a direct token) must stay small; with tokens, the whole model.
  const double H = heads, D = d, M = m, X = dIn;
  for (const auto& [what, n] : {std::pair<const char*, double>{"heads·m·d (s0)", H * M * D},
                                {"heads·m·conv (conv_k)", H * M * conv},
                                {"heads·(2m + d + 2) (direct token)", H * (2 * M + D + 2)},
                                {"heads·m·d_in (w_k)", tokens() ? 0 : H * M * X},
                                {"heads·d·d_in (w_v)", tokens() ? 0 : H * D * X}})
    if (n > kMaxLatticeElements)
      throw Error(std::string("lattice config: ") + what + " = " + std::to_string(int64_t(n)) +
                  " elements, more than 1000000");
  if (!tokens()) return;
  double total = 0;
  for (const WeightSpec& s : latticeWeightSpecs(*this)) {
    double n = 1;
    for (const int64_t e : s.shape) n *= static_cast<double>(e);
    total += n;
  }
  if (total > kMaxLatticeElements)
    throw Error("lattice config: the model would have " + std::to_string(int64_t(total)) +
                " weights, more than 1000000");
}

std::vector<WeightSpec> latticeWeightSpecs(const LatticeConfig& c) {
  std::vector<WeightSpec> s;
  if (c.input == "direct") {
    s.push_back({"s0", {c.heads, c.m, c.d}});
    return s;
  }
  if (!c.tokens()) {
    addMixerSpecs(s, c, "", c.dIn);
    return s;
  }
  const int64_t dm = c.dModel, ff = c.dFf, out = c.dOut > 0 ? c.dOut : c.dIn;
  auto pair = [&s](const std::string& name, std::vector<int64_t> weight, int64_t bias) {
    s.push_back({name + ".weight", std::move(weight)});
    s.push_back({name + ".bias", {bias}});
  };
  s.push_back({"embed.weight", {dm, c.dIn}});
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    pair(p + "norm1", {dm}, dm);
    addMixerSpecs(s, c, p, dm);
    if (ff == 0) continue;
    pair(p + "norm2", {dm}, dm);
    pair(p + "ff1", {ff, dm}, ff);
    pair(p + "ff2", {dm, ff}, dm);
  }
  pair("norm_f", {dm}, dm);
  pair("head", {out, dm}, out);
  return s;
}

}  // namespace lsrl::seed_models
