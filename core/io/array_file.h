// Binary array files, as `lsrl run` reads and writes token batches and `lsrl prompt --count`
// writes them (docs/input-format.md, "Binary batches"): a .npy file (npy.h, one array) or a
// .safetensors file (safetensors.h, named tensors), the format told by the extension.
// ArrayFileWriter writes arrays whose shapes are known up front value by value, straight
// into the file, so that a run of a million prompts never holds its outputs in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/io/tensor.h"
#include "core/util/atomic_file.h"

namespace lsrl {

enum class ArrayFormat { Npy, Safetensors };

// ".npy" or ".safetensors"; nullopt for any other name.
std::optional<ArrayFormat> arrayFormatOf(const std::string& path);

struct ArraySpec {
  std::string name;  // the tensor's name in safetensors (a .npy file has one array, unnamed)
  Tensor::DType dtype = Tensor::F64;
  std::vector<int64_t> shape;
};

class ArrayFileWriter {
 public:
  // Writes the header at once. A .npy file takes exactly one array and no metadata; a
  // .safetensors file stores `metadataJson` under "lsrl" (safetensors.h). Throws lsrl::Error
  // naming the path: another extension, a shape over kMaxTensorBytes, an unwritable target.
  ArrayFileWriter(const std::string& path, std::vector<ArraySpec> arrays,
                  const std::string& metadataJson = "");

  // The next values, C order, array after array (rounded to F32 or widened to F64 as the
  // array's dtype says). Throws lsrl::Error past the last value.
  void append(std::span<const float> values);
  void append(std::span<const double> values);
  // Renames the finished file into place; throws lsrl::Error (and leaves no file) unless every
  // value was written. Destroyed without commit(), the file is not written at all.
  void commit();

 private:
  template <class Value>
  void appendValues(std::span<const Value> values);
  void flush();

  std::string path_;
  AtomicFileWriter file_;
  std::vector<ArraySpec> arrays_;
  std::vector<uint64_t> counts_;  // elements per array
  size_t current_ = 0;            // the array being written
  uint64_t writtenInCurrent_ = 0;
  std::string buffer_;  // encoded values not yet written
};

}  // namespace lsrl
