// NumPy .npy arrays, alone (`lsrl run`'s binary token batches) or as the members of an .npz
// archive (npz.h). LSRL Studio writes format version 1.0 (2.0 only if the header exceeds
// 65535 bytes):
//   "\x93NUMPY" 1 0, header length (uint16 LE), then the header
//   {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
//   padded with spaces and ended by '\n' so that the data starts at a multiple of 64.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/tensor.h"

namespace lsrl {

// The preamble and header of an array of `shape` in `descr` ('<f8', '<f4', '|u1'); its
// data, C order, follows it.
std::string npyHeader(std::string_view descr, const std::vector<int64_t>& shape);
// The descr of a dtype: '<f8' or '<f4'.
const char* npyDescr(Tensor::DType dtype);

// What a .npy preamble and header say: the dtype and shape, where the data starts and how
// many bytes it needs (every size checked against kMaxTensorBytes before it is computed).
struct NpyLayout {
  Tensor::DType dtype = Tensor::F64;
  bool isBytes = false;  // '|u1' (npz metadata)
  std::vector<int64_t> shape;
  std::string descr;
  uint64_t count = 0;      // elements
  uint64_t dataStart = 0;  // offset of the data
  uint64_t dataBytes = 0;  // bytes the data needs
};
// Parses the first bytes only (a header fits in 64 KiB + 16), so that a zip member can be
// checked before it is decompressed. Accepts '<f8' and '<f4' (and '|u1' if allowBytes),
// C order; throws lsrl::Error "<where>: ..." otherwise.
NpyLayout npyLayout(std::string_view bytes, const std::string& where, bool allowBytes = false);
// Throws lsrl::Error "<where>: shape ... needs N data bytes, the file has M" unless `got`
// (the bytes after the header) is what the layout needs.
void requireNpyDataSize(const NpyLayout& layout, uint64_t got, const std::string& where);

// One .npy file. npyFromBytes accepts '<f8' and '<f4' (and '|u1' if allowBytes, read into
// doubles 0..255); throws lsrl::Error naming `source`.
std::string npyToBytes(const Tensor& tensor);
Tensor npyFromBytes(std::string_view bytes, const std::string& name, const std::string& source,
                    bool allowBytes = false);

}  // namespace lsrl
