// `lsrl bench run`: tokens per second of the CPU executor (core/executor) on the paper's
// programs, uncompiled: tok2tok (L = 3, direct) and vec2vec (n = 2, m = 1, direct), in
// float64 and exactly, one thread, median of `repeats` runs after a warm-up run.
// A benchmark, not a timed test: figures depend on the machine and the build type.
#pragma once

#include <iosfwd>

namespace lsrl::cli {

struct BenchRunOptions {
  int floatTokens = 10000;  // float64 input length
  int exactTokens = 10000;  // exact input length
  int repeats = 5;          // timed runs per figure; the median is reported
};

// Prints a table, then ends with ONE JSON line of the figures, e.g.
// {"bench":"run","tok2tok_float64_tokens_per_s":...,"tok2tok_exact_tokens_per_s":...,...}.
// Returns the process exit code.
int benchRun(const BenchRunOptions& options, std::ostream& out);

}  // namespace lsrl::cli
