// The looped transformer of docs/spec/seed-models.md §T6.1 (d = 2, N = 2, one head of size 2,
// r = 2 loops, ReLU, eps = 0) with its weights and input E, and small helpers to read
// trace arrays: shared by the CPU reference's test vectors (tests/seed_models) and the Vulkan
// twin's (tests/gpu).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/seed_models/looped.h"

namespace lsrl::seed_models::spec61 {

inline Tensor tensor(const std::string& name, std::vector<int64_t> shape,
                     std::vector<double> data) {
  return Tensor{name, std::move(shape), Tensor::F64, std::move(data)};
}

inline LoopedConfig config() {
  LoopedConfig c;
  c.d = 2;
  c.heads = 1;
  c.headDim = 2;
  c.dFf = 2;
  c.dFreq = 4;
  c.loops = 2;
  c.dOut = 2;
  c.activation = LoopedActivation::ReLU;
  c.rmsEps = 0;
  return c;
}

// The spec's weights; w5 and b5 (the modulation layer) vary in its variants.
inline std::vector<Tensor> weights(std::vector<double> w5 = {0.2, 0, 0, 0.2, 0.1, 0.1, -0.1, 0.1,
                                                             0.1, 0, 0, -0.1, 0.05, 0.05, 0, 0.1},
                                   std::vector<double> b5 = {0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0}) {
  return {tensor("attn.q.weight", {2, 2}, {1, 0, 0, 1}),
          tensor("attn.k.weight", {2, 2}, {0.5, -0.5, 0.5, 0.5}),
          tensor("attn.v.weight", {2, 2}, {1, 1, 0, 1}),
          tensor("attn.o.weight", {2, 2}, {1, 0, 0, -1}),
          tensor("mlp.fc1.weight", {2, 2}, {1, -1, 0.5, 1}),
          tensor("mlp.fc1.bias", {2}, {0, -0.25}),
          tensor("mlp.fc2.weight", {2, 2}, {1, 0.5, -1, 1}),
          tensor("mlp.fc2.bias", {2}, {0.1, 0}),
          tensor("timestep.fc1.weight", {2, 4}, {0.5, 0, 0.5, 0, 0, 1, 0, -1}),
          tensor("timestep.fc1.bias", {2}, {0, 0.1}),
          tensor("timestep.fc2.weight", {2, 2}, {1, 0.5, -0.5, 1}),
          tensor("timestep.fc2.bias", {2}, {0, 0}),
          tensor("modulation.weight", {8, 2}, std::move(w5)),
          tensor("modulation.bias", {8}, std::move(b5)),
          tensor("readout.weight", {2, 2}, {1, 0, 0, 1}),
          tensor("readout.bias", {2}, {0, 0})};
}

inline const Sequence kE = {{1.0, 0.0}, {0.5, -1.0}};

inline std::vector<double> flat(const Sequence& s) {
  std::vector<double> out;
  for (const Vector& r : s) out.insert(out.end(), r.begin(), r.end());
  return out;
}

// Slice `index` of the leading axis of a trace array.
inline std::vector<double> slice(const Tensor& a, size_t index) {
  size_t inner = 1;
  for (size_t i = 1; i < a.shape.size(); ++i) inner *= static_cast<size_t>(a.shape[i]);
  return {a.data.begin() + static_cast<ptrdiff_t>(index * inner),
          a.data.begin() + static_cast<ptrdiff_t>((index + 1) * inner)};
}

}  // namespace lsrl::seed_models::spec61
