// Shared by the weight export tests (safetensors, npz, numpy): a sample TensorFile and
// little-endian helpers.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "core/io/tensor.h"

namespace lsrl::testing_io {

// F64 and F32 tensors of ranks 0..3, an empty one, awkward values (F32 ones exactly
// representable in float) and metadata.
inline TensorFile sampleTensorFile() {
  TensorFile f;
  f.tensors.push_back(
      {"layers.0.A", {2, 3}, Tensor::F64, {1.0, -2.5, 1.0 / 3.0, 0.0, -0.0, 1e300}});
  f.tensors.push_back({"layers.0.b", {3}, Tensor::F32, {0.5, -1.25, 1024.0}});
  f.tensors.push_back({"scale", {}, Tensor::F64, {4.9406564584124654e-324}});
  f.tensors.push_back({"empty", {0, 4}, Tensor::F32, {}});
  f.tensors.push_back(
      {"cube", {2, 1, 2}, Tensor::F64, {std::numeric_limits<double>::max(), -7.0, 0.1, 2.0}});
  f.metadataJson = R"({"architecture":"gru","layers":["layers.0"],"dims":[3,2],"hash":"abc"})";
  return f;
}

inline uint64_t loadLE64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i)
    v |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

inline void storeLE64(std::string& bytes, size_t at, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

}  // namespace lsrl::testing_io
