#include "core/io/token_array.h"

#include <cmath>
#include <limits>

#include "core/graph/checks.h"
#include "core/io/array_file.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// Values decoded at a time by the finiteness check.
constexpr size_t kCheckBlock = size_t{1} << 16;

// The tensor of a safetensors file that holds the tokens: the only one, or the one named
// "tokens" or "input".
const StoredTensor& tokenTensor(const SafetensorsLayout& layout, const std::string& source) {
  if (layout.tensors.size() == 1) return layout.tensors[0];
  for (const char* name : {"tokens", "input"}) {
    for (const StoredTensor& t : layout.tensors)
      if (t.entry.name == name) return t;
  }
  if (layout.tensors.empty())
    throw Error(source + ": the file holds no tensor; expected the tokens");
  std::string names;
  for (const StoredTensor& t : layout.tensors)
    names += (names.empty() ? "" : ", ") + inQuotes(t.entry.name);
  throw Error(source + ": " + std::to_string(layout.tensors.size()) + " tensors (" + names +
              ") and none named 'tokens' or 'input'; name the token batch so");
}

std::string nonFiniteName(double v) {
  return std::isnan(v) ? "NaN" : v > 0 ? "+infinity" : "-infinity";
}

}  // namespace

void TokenArray::decode(size_t first, size_t count, std::span<double> out) const {
  const size_t perSequence = steps_ * width_;
  if (first > sequences_ || count > sequences_ - first || out.size() != count * perSequence)
    throw Error(source_ + ": decode of sequences out of range");
  const size_t size = dtypeSize(dtype_);
  decodeTensorValues(
      std::string_view(bytes_).substr(dataOffset_ + first * perSequence * size, out.size() * size),
      dtype_, out);
}

TokenArray tokenArrayFromBytes(std::string bytes, const std::string& source) {
  TokenArray a;
  a.source_ = source;
  const std::optional<ArrayFormat> format = arrayFormatOf(source);
  if (!format) throw Error(source + ": a binary token batch ends in .npy or .safetensors");
  uint64_t dataBytes = 0;
  if (*format == ArrayFormat::Npy) {
    const NpyLayout layout = npyLayout(bytes, source);
    requireNpyDataSize(layout, bytes.size() - layout.dataStart, source);
    a.dtype_ = layout.dtype;
    a.fileShape_ = layout.shape;
    a.dataOffset_ = layout.dataStart;
    dataBytes = layout.dataBytes;
  } else {
    const SafetensorsLayout layout = safetensorsLayout(bytes, source);
    const StoredTensor& t = tokenTensor(layout, source);
    a.dtype_ = t.entry.dtype;
    a.fileShape_ = t.entry.shape;
    a.dataOffset_ = static_cast<size_t>(t.data.data() - bytes.data());
    dataBytes = t.entry.bytes;
  }
  const std::vector<int64_t>& shape = a.fileShape_;
  const std::string shapeIs = "shape " + shapeText(shape);
  if (shape.size() != 2 && shape.size() != 3)
    throw Error(source + ": " + shapeIs + " has " + std::to_string(shape.size()) +
                " dimensions; a token batch has 3 (sequences × tokens × width) or 2 (tokens × "
                "width: one sequence)");
  for (int64_t d : shape) {
    if (d == 0)
      throw Error(source + ": " + shapeIs +
                  " holds no token; a run needs at least one sequence of at least one token, "
                  "each at least one value wide");
  }
  // elementCount (the layouts) bounded the product by 2^50 bytes, so these fit size_t.
  a.sequences_ = shape.size() == 3 ? static_cast<size_t>(shape[0]) : 1;
  a.steps_ = static_cast<size_t>(shape[shape.size() - 2]);
  a.width_ = static_cast<size_t>(shape.back());
  if (a.width_ > static_cast<size_t>(kMaxNodeDim))
    throw Error(source + ": " + shapeIs + ": tokens of " + std::to_string(a.width_) +
                " values, more than the limit " + std::to_string(kMaxNodeDim));
  if (a.steps_ > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(source + ": " + shapeIs + ": sequences of " + std::to_string(a.steps_) +
                " tokens, more than the limit " + std::to_string(std::numeric_limits<int>::max()));

  // Every value finite, as a JSON token file can only hold finite numbers.
  const size_t count = static_cast<size_t>(dataBytes / dtypeSize(a.dtype_));
  const std::string_view data = std::string_view(bytes).substr(a.dataOffset_, dataBytes);
  std::vector<double> block;
  for (size_t at = 0; at < count; at += kCheckBlock) {
    block.resize(std::min(kCheckBlock, count - at));
    decodeTensorValues(data.substr(at * dtypeSize(a.dtype_)), a.dtype_, block);
    for (size_t i = 0; i < block.size(); ++i) {
      if (std::isfinite(block[i])) continue;
      const size_t k = at + i;
      throw Error(source + ": sequence " + std::to_string(k / (a.steps_ * a.width_)) + ", token " +
                  std::to_string(k / a.width_ % a.steps_) + ", feature " +
                  std::to_string(k % a.width_) + " is " + nonFiniteName(block[i]) +
                  ": inputs must be finite numbers");
    }
  }
  a.bytes_ = std::move(bytes);
  return a;
}

TokenArray readTokenArray(const std::string& path) {
  return tokenArrayFromBytes(readWholeFile(path), path);
}

}  // namespace lsrl
