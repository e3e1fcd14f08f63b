// NumPy .npz files, as LSRL Studio writes them (docs/weights-format.md): an uncompressed
// (stored) zip archive with one .npy member (npy.h) per tensor, "<name>.npy", in the order
// given.
// The .npz format has no metadata slot: a non-empty metadataJson is stored as the last
// member, "__metadata__.npy", a 1-d uint8 array ('|u1') of the JSON text's bytes
// (in Python: json.loads(bytes(np.load(f)["__metadata__"]))).
#pragma once

#include <string>
#include <string_view>

#include "core/io/npy.h"
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

}  // namespace lsrl
