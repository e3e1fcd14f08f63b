// safetensors files (https://github.com/huggingface/safetensors), as LSRL Studio writes
// them (docs/weights-format.md):
//   8 bytes    N, the header length, little-endian uint64 (a multiple of 8)
//   N bytes    JSON header, padded with spaces:
//              {"__metadata__": {"lsrl": "<metadataJson>"},            (only if non-empty)
//               "<name>": {"dtype": "F64"|"F32", "shape": [...], "data_offsets": [b, e]}, ...}
//   the data   each tensor little-endian, row-major, contiguous, in the order given;
//              offsets are relative to the start of the data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/tensor.h"

namespace lsrl {

// What the header says of one tensor; `bytes` is the size of its data.
struct TensorEntry {
  std::string name;
  Tensor::DType dtype = Tensor::F64;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};
// The 8-byte header length and the padded JSON header of tensors whose data follows in
// the order given (shared by whole-file writes and SafetensorsStream).
std::string safetensorsHeader(const std::string& metadataJson,
                              const std::vector<TensorEntry>& entries);

// Throws lsrl::Error (see checkTensorFile) for an invalid TensorFile.
std::string safetensorsToBytes(const TensorFile& file);
// Atomic: a crash never leaves half a file. Throws lsrl::Error naming the path.
void writeSafetensors(const std::string& path, const TensorFile& file);

// Reads F64 and F32 tensors, in the order of their data offsets, and the "lsrl" entry of
// __metadata__ (other metadata entries are ignored). Every size is checked against the
// bytes actually present before use; throws lsrl::Error naming `source` (the file) and
// the tensor: truncated file, bad header length, malformed header, unknown or
// unsupported dtype, offsets out of range, overlapping, leaving gaps or not matching
// shape × dtype size.
TensorFile safetensorsFromBytes(std::string_view bytes, const std::string& source = "<memory>");

// The same file checked as above but not decoded, for data too big to copy into doubles
// at once: each tensor's header entry and its little-endian data, a view into `bytes`
// (which must outlive it), in data order.
struct StoredTensor {
  TensorEntry entry;
  std::string_view data;  // entry.bytes bytes
};
struct SafetensorsLayout {
  std::string metadataJson;
  std::vector<StoredTensor> tensors;
};
SafetensorsLayout safetensorsLayout(std::string_view bytes, const std::string& source = "<memory>");
TensorFile readSafetensors(const std::string& path);

}  // namespace lsrl
