// A safetensors file (safetensors.h) written tensor by tensor, for content too big to hold
// in memory at once, such as the payloads of a long compile history: each tensor's data
// goes at once to a scratch file with no name (it disappears with the process, even a
// killed one), and writeTo() writes the header and then copies the data after it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"

namespace lsrl {

class SafetensorsStream {
 public:
  // The scratch file goes into `folder` (the destination's, so that the data stays on the
  // disk the file goes to). Throws lsrl::Error naming the folder when it cannot.
  explicit SafetensorsStream(const std::string& folder);
  ~SafetensorsStream();
  SafetensorsStream(const SafetensorsStream&) = delete;
  SafetensorsStream& operator=(const SafetensorsStream&) = delete;

  // Checks the tensor as checkTensorFile does (names unique across the stream).
  void add(const Tensor& tensor);
  bool empty() const { return entries_.empty(); }
  uint64_t dataBytes() const { return dataBytes_; }

  struct Written {
    uint64_t bytes = 0;  // the whole file
    uint64_t hash = 0;   // fnv1a64 of the whole file
  };
  // The whole safetensors file (header with `metadataJson`, then the data) into `out`,
  // which the caller commits.
  Written writeTo(AtomicFileWriter& out, const std::string& metadataJson = "") const;

 private:
  std::string folder_;
  int fd_ = -1;
  std::vector<TensorEntry> entries_;
  std::unordered_set<std::string> names_;
  uint64_t dataBytes_ = 0;
};

}  // namespace lsrl
