// What the seed architectures (core/seed_models: minGRU, minLSTM, GateLoop, Lattice, the looped
// transformer) share: sequences of float64 vectors, seeded random initialisation that is
// the same on every platform, weights as named tensors (saved as safetensors with the
// model's config as metadata), and traces of named arrays.
//
//   seed_models::Rng rng(seed);                      // splitmix64 + Box–Muller: portable
//   Tensor w = seed_models::randomNormal(rng, "w_z", {d, k}, 1 / std::sqrt(d));
//   seed_models::saveWeights("m.safetensors", "mingru", config, tensors);
//   seed_models::Trace trace; trace.add("gates", {T, d}, values);
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/tensor.h"

namespace lsrl::seed_models {

using Vector = std::vector<double>;
using Sequence = std::vector<Vector>;  // [T][d]

// Deterministic on every platform and standard library (unlike std::normal_distribution).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();   // splitmix64
  double uniform();  // [0, 1)
  double uniform(double lo, double hi);
  double normal();  // standard normal (Box–Muller)

 private:
  uint64_t state_;
  bool hasSpare_ = false;
  double spare_ = 0;
};

// A tensor of the given shape with N(0, stddev²) or U[lo, hi) entries (F64).
Tensor randomNormal(Rng& rng, const std::string& name, std::vector<int64_t> shape, double stddev);
Tensor randomUniform(Rng& rng, const std::string& name, std::vector<int64_t> shape, double lo,
                     double hi);
Tensor filled(const std::string& name, std::vector<int64_t> shape, double value);

// Weights files: the tensors, and {"model": kind, "config": config} as the "lsrl" metadata,
// plus the entries of `extra` (a trained checkpoint's "task" and "training").
void saveWeights(const std::string& path, const std::string& kind, const nlohmann::json& config,
                 const std::vector<Tensor>& tensors,
                 const nlohmann::json& extra = nlohmann::json::object());
struct LoadedWeights {
  nlohmann::json config;
  std::vector<Tensor> tensors;
  std::string where;                                   // the file, for messages
  nlohmann::json metadata = nlohmann::json::object();  // the whole "lsrl" metadata object

  // The tensor `name` with exactly `shape`; throws lsrl::Error naming the file, the tensor
  // and expected vs got.
  const Tensor& get(const std::string& name, const std::vector<int64_t>& shape) const;
};
// Throws lsrl::Error when the file is not a weights file of `kind` ("mingru", ...) or its
// metadata has an entry of the wrong type (core/seed_models/checkpoint_metadata.h).
LoadedWeights loadWeights(const std::string& path, const std::string& kind);

// One weight tensor a config needs: its name and exact shape.
struct WeightSpec {
  std::string name;
  std::vector<int64_t> shape;
};
// The tensors `specs` names, in that order and as F64, taken from `given`: each must have
// exactly its shape and only finite entries, and `given` may hold no tensor `specs` does
// not name. Every model builds from given weights through this, so that all of them
// refuse the same files. Throws lsrl::Error naming given.where and the tensor.
std::vector<Tensor> takeWeights(const LoadedWeights& given, const std::vector<WeightSpec>& specs);

// A model's trace: named row-major arrays ("slots" [T][m][d], "gates" [T][d], ...).
class Trace {
 public:
  void add(const std::string& name, std::vector<int64_t> shape, std::vector<double> data);
  bool has(const std::string& name) const;
  const Tensor& get(const std::string& name) const;  // throws lsrl::Error naming it
  const std::vector<Tensor>& arrays() const { return arrays_; }
  // {"model": kind, "arrays": {name: {"shape": [...], "data": [...]}, ...}}
  nlohmann::json toJson(const std::string& kind) const;

 private:
  std::vector<Tensor> arrays_;
};

// Throws lsrl::Error "<what>: expected N, got M" unless `got` == `expected`.
void requireSize(const std::string& what, size_t expected, size_t got);
// Every vector of `seq` has `width` entries (else an error naming the token).
void requireWidth(const std::string& model, const Sequence& seq, int width);

}  // namespace lsrl::seed_models
