// Token batches in binary (`lsrl run --input IN.npy|IN.safetensors`, docs/input-format.md,
// "Binary batches"): one float array of B sequences × T tokens × C features, C order; a
// 2-d T × C array is one sequence (B = 1). A .npy file holds it as '<f4' or '<f8'; a
// .safetensors file as an F32 or F64 tensor, the only one or the one named "tokens" or
// "input". The file is read once and checked whole (shape, sizes against the bytes present,
// every value finite); the values stay encoded and are decoded a block of sequences at a
// time, so a million prompts cost their file's bytes and one block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/io/tensor.h"

namespace lsrl {

class TokenArray {
 public:
  const std::string& source() const { return source_; }  // the file, for messages
  Tensor::DType dtype() const { return dtype_; }
  const std::vector<int64_t>& fileShape() const { return fileShape_; }  // 2-d or 3-d
  size_t sequences() const { return sequences_; }                       // B
  size_t steps() const { return steps_; }                               // T
  size_t width() const { return width_; }                               // C

  // Sequences [first, first + count) into `out` (count·T·C values, [b][t][c]).
  void decode(size_t first, size_t count, std::span<double> out) const;

 private:
  friend TokenArray tokenArrayFromBytes(std::string bytes, const std::string& source);

  std::string source_;
  Tensor::DType dtype_ = Tensor::F64;
  std::vector<int64_t> fileShape_;
  size_t sequences_ = 0, steps_ = 0, width_ = 0;
  std::string bytes_;      // the whole file
  size_t dataOffset_ = 0;  // where the values start in bytes_
};

// The format is told by `source`'s extension (array_file.h). Throws lsrl::Error naming
// `source`: not .npy/.safetensors, malformed or truncated file, a dtype other than F32/F64,
// several tensors none of which is "tokens" or "input" (naming those found), rank other
// than 2 or 3, an empty dimension, tokens wider than kMaxNodeDim, a NaN or infinity
// (located: "sequence 3, token 5, feature 0 is NaN").
TokenArray tokenArrayFromBytes(std::string bytes, const std::string& source);
TokenArray readTokenArray(const std::string& path);

}  // namespace lsrl
