// Fuzzes the target-weight readers (safetensors, and npz when the bytes start like a zip)
// and the import of the tensors into a runnable model: any bytes must be refused with
// lsrl::Error or import. The size checks before allocation are part of what is fuzzed.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "core/targets/import.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const bool zip = bytes.size() >= 2 && bytes[0] == 'P' && bytes[1] == 'K';
    const lsrl::TensorFile file = zip ? lsrl::npzFromBytes(bytes, "fuzz.npz")
                                      : lsrl::safetensorsFromBytes(bytes, "fuzz.safetensors");
    (void)lsrl::importTargetModel(file, "fuzz");
  } catch (const lsrl::Error&) {
    // Refused, as the API promises.
  }
  return 0;
}
