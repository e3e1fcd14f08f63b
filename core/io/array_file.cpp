#include "core/io/array_file.h"

#include <algorithm>

#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// Encoded values are written in pieces of about this size.
constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

std::optional<ArrayFormat> arrayFormatOf(const std::string& path) {
  if (path.ends_with(".npy")) return ArrayFormat::Npy;
  if (path.ends_with(".safetensors")) return ArrayFormat::Safetensors;
  return std::nullopt;
}

namespace {

// The path, refused before any temporary file is made when it names no array format.
const std::string& arrayPath(const std::string& path) {
  if (!arrayFormatOf(path)) throw Error(path + ": an array file ends in .npy or .safetensors");
  return path;
}

}  // namespace

ArrayFileWriter::ArrayFileWriter(const std::string& path, std::vector<ArraySpec> arrays,
                                 const std::string& metadataJson)
    : path_(path), file_(arrayPath(path)), arrays_(std::move(arrays)) {
  std::vector<TensorEntry> entries;
  for (const ArraySpec& a : arrays_) {
    counts_.push_back(elementCount(a.shape, a.dtype, path + ": array '" + a.name + "'"));
    entries.push_back({a.name, a.dtype, a.shape, counts_.back() * dtypeSize(a.dtype)});
  }
  if (arrayFormatOf(path) == ArrayFormat::Npy) {
    if (arrays_.size() != 1 || !metadataJson.empty())
      throw Error(path + ": a .npy file holds one array and no metadata (write .safetensors)");
    file_.write(npyHeader(npyDescr(arrays_[0].dtype), arrays_[0].shape));
  } else {
    file_.write(safetensorsHeader(metadataJson, entries));
  }
}

template <class Value>
void ArrayFileWriter::appendValues(std::span<const Value> values) {
  while (!values.empty()) {
    while (current_ < arrays_.size() && writtenInCurrent_ == counts_[current_]) {
      ++current_;
      writtenInCurrent_ = 0;
    }
    if (current_ == arrays_.size())
      throw Error(path_ + ": more values than the arrays' shapes hold");
    const size_t n = static_cast<size_t>(
        std::min<uint64_t>(values.size(), counts_[current_] - writtenInCurrent_));
    appendTensorValues(values.first(n), arrays_[current_].dtype, buffer_);
    writtenInCurrent_ += n;
    values = values.subspan(n);
    if (buffer_.size() >= kFlushBytes) flush();
  }
}

void ArrayFileWriter::append(std::span<const float> values) { appendValues(values); }
void ArrayFileWriter::append(std::span<const double> values) { appendValues(values); }

void ArrayFileWriter::flush() {
  file_.write(buffer_);
  buffer_.clear();
}

void ArrayFileWriter::commit() {
  uint64_t missing = 0;
  for (size_t i = current_; i < arrays_.size(); ++i)
    missing += counts_[i] - (i == current_ ? writtenInCurrent_ : 0);
  if (missing > 0)
    throw Error(path_ + ": " + std::to_string(missing) + " values short of the arrays' shapes");
  flush();
  file_.commit();
}

}  // namespace lsrl
