// Named tensors for weight export (safetensors.h, npz.h): a small container with no
// dependency on the compiler, plus the checks and little-endian codecs both formats share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace lsrl {

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;  // {} is a scalar (one element)
  enum DType { F64, F32 } dtype = F64;
  std::vector<double> data;  // row-major; F32 values are rounded to float when written

  bool operator==(const Tensor&) const = default;
};

struct TensorFile {
  std::vector<Tensor> tensors;  // written (and read back) in this order
  // Free-form JSON text, stored under "lsrl" in safetensors' __metadata__ and as the
  // uint8 array "__metadata__" in npz. Empty: no metadata is written.
  std::string metadataJson;

  bool operator==(const TensorFile&) const = default;
};

const char* dtypeName(Tensor::DType dtype);  // "F64", "F32"
size_t dtypeSize(Tensor::DType dtype);       // 8, 4

// Largest number of data bytes one tensor may have (2^50): bounds every size computed
// from untrusted shapes so that no product overflows.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 50;

// Number of elements of `shape`; throws lsrl::Error "<where>: ..." for a negative
// dimension or a size whose bytes in `dtype` would exceed kMaxTensorBytes.
uint64_t elementCount(const std::vector<int64_t>& shape, Tensor::DType dtype,
                      const std::string& where);
std::string shapeText(const std::vector<int64_t>& shape);  // "[2, 3]"

// 'text': a name or dtype as both formats quote it in their error messages.
inline std::string inQuotes(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '\'';
  out += s;
  out += '\'';
  return out;
}

// Checks a file before writing: non-empty unique names other than "__metadata__",
// data.size() equal to the shape's element count, F32 values within float range and
// metadataJson valid JSON (or empty). Throws lsrl::Error naming `where` and the tensor.
void checkTensorFile(const TensorFile& file, const std::string& where);
// The checks of one tensor, its name among them: not in `namesSoFar` (the names of the
// tensors before it, to which it is added).
void checkTensor(const Tensor& tensor, const std::string& where,
                 std::unordered_set<std::string>& namesSoFar);

// Appends the tensor's data, little-endian, in its dtype.
void appendTensorData(const Tensor& tensor, std::string& out);
// Appends values, little-endian, in `dtype` (doubles rounded to float for F32; floats
// widened exactly for F64): for data written piece by piece.
void appendTensorValues(std::span<const double> values, Tensor::DType dtype, std::string& out);
void appendTensorValues(std::span<const float> values, Tensor::DType dtype, std::string& out);
// Decodes `count` little-endian values of `dtype` from `bytes` (at least count*size long).
std::vector<double> decodeTensorData(std::string_view bytes, Tensor::DType dtype, uint64_t count);
// The same into `out` (out.size() values), for data read piece by piece.
void decodeTensorValues(std::string_view bytes, Tensor::DType dtype, std::span<double> out);

// Writes `toBytes(file)` to `path` atomically (core/util/atomic_file.h); an encoding error
// is rethrown as lsrl::Error naming the path, and then nothing is written.
void writeTensorFile(const std::string& path, const TensorFile& file,
                     std::string (*toBytes)(const TensorFile&));

}  // namespace lsrl
