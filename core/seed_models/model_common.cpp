#include "core/seed_models/model_common.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "core/io/json_util.h"
#include "core/io/safetensors.h"
#include "core/seed_models/checkpoint_metadata.h"
#include "core/util/error.h"
#include "core/util/nonfinite.h"
#include "core/util/quote_input.h"

namespace lsrl::seed_models {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double Rng::normal() {
  if (hasSpare_) {
    hasSpare_ = false;
    return spare_;
  }
  double u = 0;
  while (u <= 0) u = uniform();  // log(0) would be −∞
  const double v = uniform();
  const double r = std::sqrt(-2.0 * std::log(u));
  spare_ = r * std::sin(2 * std::numbers::pi * v);
  hasSpare_ = true;
  return r * std::cos(2 * std::numbers::pi * v);
}

namespace {
size_t count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (const int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}
}  // namespace

Tensor randomNormal(Rng& rng, const std::string& name, std::vector<int64_t> shape, double stddev) {
  Tensor t{name, std::move(shape), Tensor::F64, {}};
  t.data.resize(count(t.shape));
  for (double& x : t.data) x = stddev * rng.normal();
  return t;
}

Tensor randomUniform(Rng& rng, const std::string& name, std::vector<int64_t> shape, double lo,
                     double hi) {
  Tensor t{name, std::move(shape), Tensor::F64, {}};
  t.data.resize(count(t.shape));
  for (double& x : t.data) x = rng.uniform(lo, hi);
  return t;
}

Tensor filled(const std::string& name, std::vector<int64_t> shape, double value) {
  Tensor t{name, std::move(shape), Tensor::F64, {}};
  t.data.assign(count(t.shape), value);
  return t;
}

void saveWeights(const std::string& path, const std::string& kind, const nlohmann::json& config,
                 const std::vector<Tensor>& tensors, const nlohmann::json& extra) {
  TensorFile file;
  file.tensors = tensors;
  nlohmann::json meta = extra.is_object() ? extra : nlohmann::json::object();
  meta["model"] = kind;
  meta["config"] = config;
  file.metadataJson = meta.dump();
  writeSafetensors(path, file);
}

const Tensor& LoadedWeights::get(const std::string& name, const std::vector<int64_t>& shape) const {
  for (const Tensor& t : tensors) {
    if (t.name != name) continue;
    if (t.shape != shape)
      throw Error(where + ": tensor \"" + name + "\" is " + shapeText(t.shape) + ", expected " +
                  shapeText(shape));
    return t;
  }
  throw Error(where + ": no tensor \"" + name + "\" (expected " + shapeText(shape) + ")");
}

std::vector<Tensor> takeWeights(const LoadedWeights& given, const std::vector<WeightSpec>& specs) {
  std::vector<Tensor> out;
  for (const WeightSpec& s : specs) {
    Tensor t = given.get(s.name, s.shape);
    requireSize(given.where + ": tensor \"" + s.name + "\" values", count(s.shape), t.data.size());
    const size_t bad = firstNonFinite(t.data);
    if (bad != t.data.size())
      throw Error(given.where + ": tensor \"" + s.name + "\" has a non-finite entry (" +
                  (std::isnan(t.data[bad]) ? "nan"
                   : t.data[bad] > 0       ? "inf"
                                           : "-inf") +
                  " at index " + std::to_string(bad) + ")");
    t.dtype = Tensor::F64;
    out.push_back(std::move(t));
  }
  for (const Tensor& t : given.tensors) {
    const bool known = std::any_of(specs.begin(), specs.end(),
                                   [&](const WeightSpec& s) { return s.name == t.name; });
    if (!known)
      throw Error(given.where + ": unexpected tensor " + quoteInput(t.name) + " for this config");
  }
  return out;
}

LoadedWeights loadWeights(const std::string& path, const std::string& kind) {
  const TensorFile file = readSafetensors(path);
  const nlohmann::json meta =
      io::parseJson(file.metadataJson.empty() ? "null" : file.metadataJson, path + " metadata");
  if (!meta.is_object() || !meta.contains("model") || !meta["model"].is_string())
    throw Error(path + ": not a seed-model weights file (no \"model\" in its metadata)");
  checkCheckpointMetadata(path, meta);
  if (meta["model"] != kind)
    throw Error(path + ": holds a " + meta["model"].get<std::string>() + " model, not " + kind);
  LoadedWeights out;
  out.config = meta.value("config", nlohmann::json::object());
  out.metadata = meta;
  out.tensors = file.tensors;
  out.where = path;
  return out;
}

void Trace::add(const std::string& name, std::vector<int64_t> shape, std::vector<double> data) {
  requireSize("trace array \"" + name + "\"", count(shape), data.size());
  for (Tensor& t : arrays_) {
    if (t.name == name) {
      t = Tensor{name, std::move(shape), Tensor::F64, std::move(data)};
      return;
    }
  }
  arrays_.push_back(Tensor{name, std::move(shape), Tensor::F64, std::move(data)});
}

bool Trace::has(const std::string& name) const {
  for (const Tensor& t : arrays_)
    if (t.name == name) return true;
  return false;
}

const Tensor& Trace::get(const std::string& name) const {
  for (const Tensor& t : arrays_)
    if (t.name == name) return t;
  throw Error("trace: no array \"" + name + "\"");
}

nlohmann::json Trace::toJson(const std::string& kind) const {
  nlohmann::json arrays = nlohmann::json::object();
  for (const Tensor& t : arrays_) {
    nlohmann::json data = nlohmann::json::array();
    for (const double x : t.data)
      data.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json());
    arrays[t.name] = {{"shape", t.shape}, {"data", std::move(data)}};
  }
  return {{"model", kind}, {"arrays", std::move(arrays)}};
}

void requireSize(const std::string& what, size_t expected, size_t got) {
  if (expected != got)
    throw Error(what + ": expected " + std::to_string(expected) + ", got " + std::to_string(got));
}

void requireWidth(const std::string& model, const Sequence& seq, int width) {
  for (size_t t = 0; t < seq.size(); ++t) {
    if (static_cast<int>(seq[t].size()) != width)
      throw Error(model + ": token " + std::to_string(t) + " has " + std::to_string(seq[t].size()) +
                  " features, expected " + std::to_string(width));
  }
}

}  // namespace lsrl::seed_models
