// MinRnnConfig's JSON form and the weight tensors a config implies (min_rnn_model.h).
#include <nlohmann/json.hpp>
#include <string>

#include "core/io/json_util.h"
#include "core/seed_models/config_reader.h"
#include "core/seed_models/min_rnn_model.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using nlohmann::json;

}  // namespace

const char* minRnnCellKind(MinRnnCell cell) {
  return cell == MinRnnCell::Gru ? "mingru" : "minlstm";
}

std::vector<std::string> minRnnGateLinears(MinRnnCell cell) {
  if (cell == MinRnnCell::Gru) return {"z"};
  return {"f", "i"};
}

json MinRnnConfig::toJson() const {
  return {{"d_model", dModel},
          {"d_h", dh},
          {"layers", layers},
          {"d_out", dOut},
          {"variant", minRnnVariantName(variant)},
          {"mode", minRnnModeName(mode)},
          {"layer_norm", layerNorm},
          {"residual", residual},
          {"seed", seed},
          {"vocabulary", task.vocabulary},
          {"task_length", task.length},
          {"data_tokens", task.dataTokens}};
}

MinRnnConfig MinRnnConfig::fromJson(const json& j, MinRnnCell cell) {
  const ConfigReader r{minRnnCellKind(cell)};
  if (!j.is_object())
    throw Error(r.kind + " config: expected a JSON object, got " + io::describeJson(j));
  MinRnnConfig c;
  for (const auto& [key, v] : j.items()) {
    if (key == "d_model")
      c.dModel = r.integer(v, key, 1, kMaxElements);
    else if (key == "d_h")
      c.dh = r.integer(v, key, 1, kMaxElements);
    else if (key == "layers")
      c.layers = r.integer(v, key, 1, 1000);
    else if (key == "d_out")
      c.dOut = r.integer(v, key, 1, kMaxElements);
    else if (key == "variant")
      c.variant = r.named<MinRnnVariant>(v, key, minRnnVariantFromName, "vanilla, log");
    else if (key == "mode")
      c.mode = r.named<MinRnnMode>(v, key, minRnnModeFromName, "sequential, parallel, log_space");
    else if (key == "layer_norm")
      c.layerNorm = r.boolean(v, key);
    else if (key == "residual")
      c.residual = r.boolean(v, key);
    else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        r.bad(key, "expected a non-negative integer, got " + io::describeJson(v));
      c.seed = v.get<uint64_t>();
    } else if (key == "vocabulary")
      c.task.vocabulary = r.integer(v, key, 3, kMaxElements);
    else if (key == "task_length")
      c.task.length = r.integer(v, key, 0, kMaxElements);
    else if (key == "data_tokens")
      c.task.dataTokens = r.integer(v, key, 0, kMaxElements);
    else
      r.bad(key, "unknown key");
  }
  c.validate(cell);
  return c;
}

void MinRnnConfig::validate(MinRnnCell cell) const {
  const ConfigReader r{minRnnCellKind(cell)};
  auto size = [&](const std::string& key, long long value, long long hi) {
    if (value < 1 || value > hi)
      r.bad(key,
            "expected an integer in 1.." + std::to_string(hi) + ", got " + std::to_string(value));
  };
  size("d_model", dModel, kMaxElements);
  size("d_h", dh, kMaxElements);
  size("layers", layers, 1000);
  size("d_out", dOut, kMaxElements);
  if (mode == MinRnnMode::LogSpace && variant != MinRnnVariant::Log)
    r.bad("mode", "log_space needs \"variant\": \"log\" (a vanilla candidate can be negative)");
  try {
    checkSelectiveCopyParams(task);
  } catch (const Error& e) {
    throw Error(r.kind + " config: " + e.what());
  }
  long long total = 0;
  for (const MinRnnWeightSpec& s : minRnnWeightSpecs(*this, cell)) {
    long long n = 1;
    for (const int64_t d : s.shape) n *= d;
    total += n;
    if (total > kMaxElements)
      throw Error(r.kind + " config: the model would have more than " +
                  std::to_string(kMaxElements) + " weights");
  }
}

std::vector<MinRnnWeightSpec> minRnnWeightSpecs(const MinRnnConfig& c, MinRnnCell cell) {
  const int64_t d = c.dModel, h = c.dh;
  std::vector<MinRnnWeightSpec> specs;
  auto linear = [&](const std::string& name, int64_t out, int64_t in) {
    specs.push_back({name + ".weight", {out, in}});
    specs.push_back({name + ".bias", {out}});
  };
  specs.push_back({"embed.weight", {d, c.dIn()}});
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    if (c.layerNorm) {
      specs.push_back({p + "norm.weight", {d}});
      specs.push_back({p + "norm.bias", {d}});
    }
    for (const std::string& gate : minRnnGateLinears(cell)) linear(p + gate, h, d);
    linear(p + "h", h, d);
    linear(p + "out", d, h);
  }
  linear("head", c.dOut, d);
  return specs;
}

}  // namespace lsrl::seed_models
