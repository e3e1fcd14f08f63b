// `lsrl bench precision`: are compiled weights right in the arithmetic they run in? For
// each paper program and conditional variant (tok2tok L = 3 and 10, vec2vec n = 2 at
// N = 8, more_ones), the program compiled with its constants as built and fitted by the
// precision pass (float64, fp32), run exactly, in float64 and in fp32 (the CPU batch
// runner; Vulkan with --vulkan) on seeded random inputs. A wrong answer: a tok2tok or
// more_ones output that rounds to another token than the expected one, a vec2vec output
// more than 1e-3 from the exact model's (queries at least 0.01 from every cell wall).
// docs/precision.md shows its table.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace lsrl::gpu {
class Device;
}

namespace lsrl::cli {

struct BenchPrecisionOptions {
  std::vector<std::string> programs{"tok2tok", "vec2vec", "more_ones"};
  std::vector<std::string> variants{"direct", "optimized", "step_optimized", "multiplicative",
                                    "multiplicative_optimized"};
  std::vector<int> lengths{3, 10};  // tok2tok L
  int cases = 200;                  // dictionaries, queries or bit strings per row
  int horizon = 160;                // the domain's t ≤ T, and the longest input
  uint64_t seed = 0;
  bool vulkan = false;            // also fp32 and fp64 on the Vulkan device, timed
  gpu::Device* device = nullptr;  // with vulkan: the device (default: opened per run)
  std::string jsonPath;           // also write the JSON there
};

// Prints a table, then ONE JSON line with every row. Returns the exit code: 0, also when
// some row has wrong answers (the table is the result).
int benchPrecision(const BenchPrecisionOptions& options, std::ostream& out);

}  // namespace lsrl::cli
