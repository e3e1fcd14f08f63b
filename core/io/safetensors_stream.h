// A safetensors file (safetensors.h) written tensor by tensor, for content too big to hold
// in memory at once, such as the payloads of a long compile history: each tensor's data
// goes at once to a ScratchFile, and writeTo() writes the header and then copies the data
// after it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"
#include "core/util/scratch_file.h"

namespace lsrl {

class SafetensorsStream {
 public:
  // The scratch file goes into `folder` (see ScratchFile).
  explicit SafetensorsStream(const std::string& folder) : data_(folder) {}

  // Checks the tensor as checkTensorFile does (names unique across the stream).
  void add(const Tensor& tensor);
  bool empty() const { return entries_.empty(); }
  uint64_t dataBytes() const { return data_.size(); }

  struct Written {
    uint64_t bytes = 0;  // the whole file
    uint64_t hash = 0;   // fnv1a64 of the whole file
  };
  // The whole safetensors file (header with `metadataJson`, then the data) into `out`,
  // which the caller commits.
  Written writeTo(AtomicFileWriter& out, const std::string& metadataJson = "") const;

 private:
  ScratchFile data_;
  std::vector<TensorEntry> entries_;
  std::unordered_set<std::string> names_;
};

}  // namespace lsrl
