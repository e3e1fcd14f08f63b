// GateLoopConfig's JSON form and the weight tensors a config implies (gateloop.h).
#include <nlohmann/json.hpp>
#include <string>

#include "core/io/json_util.h"
#include "core/seed_models/config_reader.h"
#include "core/seed_models/gateloop.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using nlohmann::json;

const ConfigReader gateLoopReader{"gateloop"};

std::optional<bool> transitionsFromName(std::string_view name) {
  if (name == "data") return true;
  if (name == "fixed") return false;
  return std::nullopt;
}

}  // namespace

json GateLoopConfig::toJson() const {
  return {{"d_model", dModel},
          {"layers", layers},
          {"d_h", dh},
          {"d_channel_mixing", dChannelMixing},
          {"d_out", dOut},
          {"magnitude_activation", gateLoopMagnitudeName(magnitude)},
          {"phase_activation", gateLoopPhaseName(phase)},
          {"transitions", dataControlled ? "data" : "fixed"},
          {"output_projection", outputProjection},
          {"layer_norm", layerNorm},
          {"channel_mixing", channelMixing},
          {"residual", residual},
          {"mode", gateLoopModeName(mode)},
          {"seed", seed},
          {"task_length", task.length},
          {"task_resets", task.resets},
          {"max_number", task.maxNumber},
          {"modulus", task.modulus}};
}

GateLoopConfig GateLoopConfig::fromJson(const json& j) {
  if (!j.is_object())
    throw Error("gateloop config: expected a JSON object, got " + io::describeJson(j));
  GateLoopConfig c;
  for (const auto& [key, v] : j.items()) {
    if (key == "d_model")
      c.dModel = gateLoopReader.integer(v, key, 1, kMaxElements);
    else if (key == "layers")
      c.layers = gateLoopReader.integer(v, key, 1, 1000);
    else if (key == "d_h")
      c.dh = gateLoopReader.integer(v, key, 1, kMaxElements);
    else if (key == "d_channel_mixing")
      c.dChannelMixing = gateLoopReader.integer(v, key, 1, kMaxElements);
    else if (key == "d_out")
      c.dOut = gateLoopReader.integer(v, key, 1, kMaxElements);
    else if (key == "magnitude_activation")
      c.magnitude = gateLoopReader.named<GateLoopMagnitude>(v, key, gateLoopMagnitudeFromName,
                                                            "sigmoid, exp_exp");
    else if (key == "phase_activation")
      c.phase =
          gateLoopReader.named<GateLoopPhase>(v, key, gateLoopPhaseFromName, "identity, pi_tanh");
    else if (key == "transitions")
      c.dataControlled = gateLoopReader.named<bool>(v, key, transitionsFromName, "data, fixed");
    else if (key == "output_projection")
      c.outputProjection = gateLoopReader.boolean(v, key);
    else if (key == "layer_norm")
      c.layerNorm = gateLoopReader.boolean(v, key);
    else if (key == "channel_mixing")
      c.channelMixing = gateLoopReader.boolean(v, key);
    else if (key == "residual")
      c.residual = gateLoopReader.boolean(v, key);
    else if (key == "mode")
      c.mode = gateLoopReader.named<GateLoopMode>(v, key, gateLoopModeFromName,
                                                  "recurrent, scan, scan_hillis_steele, attention, "
                                                  "attention_naive, softmax");
    else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        gateLoopReader.bad(key, "expected a non-negative integer, got " + io::describeJson(v));
      c.seed = v.get<uint64_t>();
    } else if (key == "task_length")
      c.task.length = gateLoopReader.integer(v, key, 0, kMaxElements);
    else if (key == "task_resets")
      c.task.resets = gateLoopReader.integer(v, key, 0, kMaxElements);
    else if (key == "max_number")
      c.task.maxNumber = gateLoopReader.integer(v, key, 0, kMaxElements);
    else if (key == "modulus")
      c.task.modulus = gateLoopReader.integer(v, key, 1, kMaxElements);
    else
      gateLoopReader.bad(key, "unknown key");
  }
  if (c.dModel % c.dh != 0)
    gateLoopReader.bad(
        "d_h", std::to_string(c.dh) + " does not divide d_model = " + std::to_string(c.dModel));
  if (c.task.length > 0 && c.task.resets >= c.task.length)
    gateLoopReader.bad("task_resets", std::to_string(c.task.resets) + " do not fit task_length " +
                                          std::to_string(c.task.length) +
                                          " (at most task_length − 1)");
  long long total = 0;
  for (const GateLoopWeightSpec& s : gateLoopWeightSpecs(c)) {
    long long n = 1;
    for (const int64_t d : s.shape) n *= d;
    total += n;
  }
  if (total > kMaxElements)
    throw Error("gateloop config: the model would have " + std::to_string(total) +
                " weights, more than " + std::to_string(kMaxElements));
  return c;
}

std::vector<GateLoopWeightSpec> gateLoopWeightSpecs(const GateLoopConfig& c) {
  const int64_t d = c.dModel, f = c.dChannelMixing;
  std::vector<GateLoopWeightSpec> specs;
  auto linear = [&](const std::string& name, int64_t out, int64_t in, bool weight = true) {
    if (weight) specs.push_back({name + ".weight", {out, in}});
    specs.push_back({name + ".bias", {out}});
  };
  auto norm = [&](const std::string& name) {
    if (!c.layerNorm) return;
    specs.push_back({name + ".weight", {d}});
    specs.push_back({name + ".bias", {d}});
  };
  specs.push_back({"embed.weight", {d, c.dIn()}});
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    norm(p + "norm1");
    linear(p + "q", d, d);
    linear(p + "k", d, d);
    linear(p + "v", d, d);
    linear(p + "gamma", d, d, c.dataControlled);  // fixed transitions: the bias only
    linear(p + "theta", d, d, c.dataControlled);
    if (c.outputProjection) linear(p + "out", d, d);
    if (!c.channelMixing) continue;
    norm(p + "norm2");
    linear(p + "ffn.up", f, d);
    linear(p + "ffn.down", d, f);
  }
  norm("norm_f");
  linear("head", c.dOut, d);
  return specs;
}

}  // namespace lsrl::seed_models
