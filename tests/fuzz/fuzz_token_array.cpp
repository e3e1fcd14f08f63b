// Fuzzes binary token batches (`lsrl run --input IN.npy|IN.safetensors`,
// core/io/token_array.h): any bytes must be read or refused with lsrl::Error. A batch that
// is read decodes every sequence within its bytes into finite values, as the reader
// promises; the size checks before allocation are part of what is fuzzed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/io/token_array.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  // The reader tells the format by the name: .npy for bytes that start like one.
  const bool npy = bytes.rfind("\x93NUMPY", 0) == 0;
  try {
    const lsrl::TokenArray batch =
        lsrl::tokenArrayFromBytes(std::move(bytes), npy ? "fuzz.npy" : "fuzz.safetensors");
    std::vector<double> values(batch.steps() * batch.width());
    for (size_t s = 0; s < batch.sequences(); ++s) {
      batch.decode(s, 1, values);
      for (double v : values)
        if (!std::isfinite(v)) std::abort();  // the reader accepted a NaN or an infinity
    }
  } catch (const lsrl::Error&) {
    // Refused, as the API promises.
  }
  return 0;
}
