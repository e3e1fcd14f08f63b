#include "core/io/tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/io/json_util.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

template <typename U>
void appendLittleEndian(U bits, std::string& out) {
  for (size_t i = 0; i < sizeof(U); ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

template <typename U>
U loadLittleEndian(const char* p) {
  U bits = 0;
  for (size_t i = 0; i < sizeof(U); ++i) {
    bits |= static_cast<U>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return bits;
}

}  // namespace

const char* dtypeName(Tensor::DType dtype) { return dtype == Tensor::F32 ? "F32" : "F64"; }

size_t dtypeSize(Tensor::DType dtype) { return dtype == Tensor::F32 ? 4 : 8; }

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

uint64_t elementCount(const std::vector<int64_t>& shape, Tensor::DType dtype,
                      const std::string& where) {
  const uint64_t maxCount = kMaxTensorBytes / dtypeSize(dtype);
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error(where + ": negative dimension in shape " + shapeText(shape));
  }
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  for (int64_t d : shape) {
    const uint64_t u = static_cast<uint64_t>(d);
    if (u > maxCount || count > maxCount / u) {
      throw Error(where + ": shape " + shapeText(shape) + " in " + dtypeName(dtype) +
                  " exceeds the size limit of 2^50 bytes");
    }
    count *= u;
  }
  return count;
}

void checkTensor(const Tensor& t, const std::string& where,
                 std::unordered_set<std::string>& namesSoFar) {
  const std::string what = where + ": tensor '" + t.name + "'";
  if (t.name.empty()) throw Error(where + ": a tensor has an empty name");
  if (t.name == "__metadata__") {
    throw Error(what + ": the name is reserved for the metadata");
  }
  if (t.name.find('\0') != std::string::npos) throw Error(what + ": the name contains a NUL");
  if (!namesSoFar.insert(t.name).second) throw Error(what + ": the name is used twice");
  if (t.dtype != Tensor::F64 && t.dtype != Tensor::F32) throw Error(what + ": unknown dtype");
  const uint64_t count = elementCount(t.shape, t.dtype, what);
  if (t.data.size() != count) {
    throw Error(what + ": shape " + shapeText(t.shape) + " has " + std::to_string(count) +
                " elements but the data has " + std::to_string(t.data.size()));
  }
  if (t.dtype == Tensor::F32) {
    for (size_t i = 0; i < t.data.size(); ++i) {
      const double v = t.data[i];
      if (std::isfinite(v) && std::isinf(static_cast<float>(v))) {
        throw Error(what + ": element " + std::to_string(i) + " (" + std::to_string(v) +
                    ") overflows F32");
      }
    }
  }
}

void checkTensorFile(const TensorFile& file, const std::string& where) {
  std::unordered_set<std::string> names;
  for (const Tensor& t : file.tensors) checkTensor(t, where, names);
  if (!file.metadataJson.empty()) io::parseJson(file.metadataJson, where + ": metadata");
}

namespace {

template <class Value>
void appendValues(std::span<const Value> values, Tensor::DType dtype, std::string& out) {
  out.reserve(out.size() + values.size() * dtypeSize(dtype));
  if (dtype == Tensor::F32) {
    for (Value v : values) appendLittleEndian(std::bit_cast<uint32_t>(static_cast<float>(v)), out);
  } else {
    for (Value v : values) appendLittleEndian(std::bit_cast<uint64_t>(static_cast<double>(v)), out);
  }
}

}  // namespace

void appendTensorValues(std::span<const double> values, Tensor::DType dtype, std::string& out) {
  appendValues(values, dtype, out);
}

void appendTensorValues(std::span<const float> values, Tensor::DType dtype, std::string& out) {
  appendValues(values, dtype, out);
}

void appendTensorData(const Tensor& tensor, std::string& out) {
  appendTensorValues(tensor.data, tensor.dtype, out);
}

void decodeTensorValues(std::string_view bytes, Tensor::DType dtype, std::span<double> out) {
  const size_t size = dtypeSize(dtype);
  if (bytes.size() / size < out.size()) throw Error("decodeTensorValues: buffer too short");
  const char* p = bytes.data();
  if (dtype == Tensor::F32) {
    for (double& v : out) {
      v = std::bit_cast<float>(loadLittleEndian<uint32_t>(p));
      p += 4;
    }
  } else {
    for (double& v : out) {
      v = std::bit_cast<double>(loadLittleEndian<uint64_t>(p));
      p += 8;
    }
  }
}

std::vector<double> decodeTensorData(std::string_view bytes, Tensor::DType dtype, uint64_t count) {
  if (bytes.size() / dtypeSize(dtype) < count) throw Error("decodeTensorData: buffer too short");
  std::vector<double> data(count);
  decodeTensorValues(bytes, dtype, data);
  return data;
}

void writeTensorFile(const std::string& path, const TensorFile& file,
                     std::string (*toBytes)(const TensorFile&)) {
  std::string bytes;
  try {
    bytes = toBytes(file);
  } catch (const Error& e) {
    throw Error("writing \"" + path + "\": " + e.what());
  }
  writeFileAtomically(path, bytes);
}

}  // namespace lsrl
