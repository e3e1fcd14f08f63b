// `lsrl bench compile`: compile time and compiled size of the paper's programs, per
// conditional variant, backend and optimisation setting. compile() alone is timed
// (history recording on, no file I/O), median of `repeats` runs. A benchmark, not a timed
// test: figures depend on the machine and the build type (use Release).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace lsrl::cli {

struct BenchCompileOptions {
  std::vector<std::string> programs{"tok2tok", "vec2vec"};
  std::vector<std::string> variants{"direct", "optimized", "step_optimized", "multiplicative",
                                    "multiplicative_optimized"};
  std::vector<std::string> backends{"float64", "exact"};
  std::vector<bool> optimize{true};  // with --no-optimize also false
  int repeats = 5;
};

// Prints a table, then ONE JSON line with every row's figures. Returns the exit code.
int benchCompile(const BenchCompileOptions& options, std::ostream& out);

}  // namespace lsrl::cli
