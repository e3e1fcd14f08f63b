// Fuzzes token-input (sequence) file parsing: any bytes must either parse or throw
// lsrl::Error. Any other exception, crash, sanitizer report, hang or runaway
// allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/io/sequence_file.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const lsrl::SequenceBatch batch = lsrl::sequencesFromString(text);
    (void)batch;
  } catch (const lsrl::Error&) {
    // Malformed input, reported as the API promises.
  }
  return 0;
}
