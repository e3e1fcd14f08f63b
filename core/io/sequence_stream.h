// Token input files (sequence_file.h format) read as a stream, for runs too long to hold:
// one pass hands each token row to a callback as it is parsed, keeping only the count of
// tokens per sequence. `lsrl run` calls it twice: to validate (nothing is printed before
// the whole input is known to be good) and to run, so 10^7 tokens cost what the file's
// text costs instead of gigabytes of parsed values.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/graph/matrix.h"

namespace lsrl {

struct SequenceFileShape {
  bool isBatch = false;         // the file used the "batch" form
  int width = 0;                // token width shared by every row
  std::vector<size_t> lengths;  // tokens per sequence, in file order
  long long conductor = 4;      // lcm of the conductors of every value (exact plans)
  size_t tokens = 0;            // all tokens
};

// Calls onToken(sequence, token, row) for every token row in file order (onToken may be
// empty). Accepts exactly what loadSequenceFile accepts; for a file it refuses, throws
// loadSequenceFile's own error (located: file, JSON path, expected vs got). An exception
// thrown by onToken propagates unchanged.
SequenceFileShape streamSequenceFile(
    const std::string& path,
    const std::function<void(size_t sequence, size_t token, ExactVector&& row)>& onToken);

}  // namespace lsrl
