// NumPy .npz files, as LSRL Studio writes them (docs/weights-format.md): an uncompressed
// (stored) zip archive with one .npy member per tensor, "<name>.npy", in the order given.
// Each .npy is format version 1.0 (2.0 only if the header exceeds 65535 bytes):
//   "\x93NUMPY" 1 0, header length (uint16 LE), then the header
//   {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
//   padded with spaces and ended by '\n' so that the data starts at a multiple of 64.
// The .npz format has no metadata slot: a non-empty metadataJson is stored as the last
// member, "__metadata__.npy", a 1-d uint8 array ('|u1') of the JSON text's bytes
// (in Python: json.loads(bytes(np.load(f)["__metadata__"]))).
#pragma once

#include <string>
#include <string_view>

#include "core/io/tensor.h"

namespace lsrl {

// Throws lsrl::Error (see checkTensorFile) for an invalid TensorFile. The bytes depend
// only on the file (fixed timestamps), so equal inputs give equal archives.
std::string npzToBytes(const TensorFile& file);
// Atomic: a crash never leaves half a file. Throws lsrl::Error naming the path.
void writeNpz(const std::string& path, const TensorFile& file);

// Reads archives of '<f8'/'<f4' C-order .npy members (stored or deflated, as np.savez
// and np.savez_compressed write them) in archive order, and "__metadata__.npy". Throws
// lsrl::Error naming `source` and the member.
TensorFile npzFromBytes(std::string_view bytes, const std::string& source = "<memory>");
TensorFile readNpz(const std::string& path);

// One .npy file. npyFromBytes accepts '<f8' and '<f4' (and '|u1' if allowBytes, read into
// doubles 0..255); throws lsrl::Error naming `source`.
std::string npyToBytes(const Tensor& tensor);
Tensor npyFromBytes(std::string_view bytes, const std::string& name, const std::string& source,
                    bool allowBytes = false);

}  // namespace lsrl
