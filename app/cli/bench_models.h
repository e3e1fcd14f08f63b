// `lsrl bench models`: minGRU's recurrence h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h̃_t run
// sequentially and as a parallel scan, at T = 512 and 4096, on the CPU (the float64
// reference's loop vs its Blelloch scan, one thread) and on the Vulkan device (the
// sequential-per-channel kernel vs the chunked scan, GPU time), for one sequence and for a
// batch; beside it a GRU's sequential recurrence (the fp32 CPU twin and the device's cell),
// the model the paper compares with. The paper's 175× (T = 512) and 1324× (T = 4096) are
// minGRU vs GRU *training* on a T4 (BPTT through the GRU's nonlinear recurrence); the
// printed notes say what these figures measure instead. A benchmark, not a timed test.
#pragma once

#include <iosfwd>

namespace lsrl::cli {

struct BenchModelsOptions {
  int repeats = 5;
  int channels = 64;   // d_h
  int batch = 16;      // sequences in the batched figures
  bool vulkan = true;  // --no-vulkan: CPU figures only
};

// Prints a table, then ONE JSON line of the figures.
int benchModels(const BenchModelsOptions& options, std::ostream& out);

}  // namespace lsrl::cli
