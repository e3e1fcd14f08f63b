// Fuzzes token-input (sequence) file parsing: any bytes must either parse or throw
// lsrl::Error. Any other exception, crash, sanitizer report, hang or runaway
// allocation is a finding. The streaming reader `lsrl run` uses (sequence_stream.h) reads
// the same bytes from a file and must agree: it accepts exactly what the whole-file reader
// accepts, with the same form, width, sequence lengths and rows.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/sequence_file.h"
#include "core/io/sequence_stream.h"
#include "core/util/error.h"

namespace {

const std::string& scratchPath() {
  static const std::string path = "/tmp/lsrl-fuzz-sequence-" + std::to_string(::getpid()) + ".json";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<lsrl::SequenceBatch> batch;
  try {
    batch = lsrl::sequencesFromString(text);
  } catch (const lsrl::Error&) {
    // Malformed input, reported as the API promises.
  }

  std::ofstream(scratchPath(), std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  size_t streamedTokens = 0;
  bool rowsAgree = true;
  try {
    const lsrl::SequenceFileShape shape = lsrl::streamSequenceFile(
        scratchPath(), [&](size_t sequence, size_t token, lsrl::ExactVector&& row) {
          ++streamedTokens;
          const auto& sequences = batch ? batch->sequences : std::vector<lsrl::ExactSequence>{};
          if (sequence >= sequences.size() || token >= sequences[sequence].size() ||
              !(sequences[sequence][token] == row))
            rowsAgree = false;
        });
    if (!batch || !rowsAgree || shape.tokens != streamedTokens || shape.isBatch != batch->isBatch ||
        shape.width != batch->width || shape.lengths.size() != batch->sequences.size())
      std::abort();  // the stream accepted what the whole-file reader refused, or misread it
    for (size_t s = 0; s < shape.lengths.size(); ++s) {
      if (shape.lengths[s] != batch->sequences[s].size()) std::abort();
    }
  } catch (const lsrl::Error&) {
    if (batch) std::abort();  // the stream refused what the whole-file reader accepted
  }
  return 0;
}
