// The scan / recurrence kernels on Vulkan, twins of core/float_batch/scan.h (same layouts, same
// arguments):
//   diagonal scan (real, complex)  h_t = a_t ⊙ h_{t−1} + b_t, chunked over time:
//       phase 1 reduces each chunk to its composition (prod a, acc b), phase 2 carries the
//       state across the chunks of each (b, c), phase 3 rescans each chunk from its carry
//       and writes h. Within a chunk, lanes along time scan cooperatively — with subgroup
//       shuffles or with shared memory at a chosen width — or, as the baseline, one
//       invocation per (b, c) walks all T (Sequential).
//   blockScan2       constant 2×2 blocks, one invocation per (b, block) walks T.
//   linearRecurrence general CSR A, one workgroup per batch item runs all T steps
//                    (optionally h_t = ReLU(A h_{t−1} + u_t): the ReLU-RNN).
// Each kernel has record(Batch&, buffers…, shape) to chain dispatches in one submission
// and a host run(...) (upload, record, run, download) for tests and tools. A ScanKernels
// works in one precision (real.h): fp32, or fp64 with the shaders' `_f64` twins, its
// buffers and host values then doubles (docs/vulkan.md, "Float64 on the device").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/float_batch/layouts.h"
#include "core/gpu/device.h"
#include "core/gpu/real.h"

namespace lsrl::gpu {

enum class ScanPath {
  Auto,        // Subgroup when the device has subgroup arithmetic, else Shared
  Subgroup,    // lanes = the device's (minimum) subgroup size
  Shared,      // lanes = sharedWidth, scanned in shared memory
  Sequential,  // one invocation per (b, c) over all T
};

// How a chunked path (Subgroup, Shared) orders the chunks of a series.
enum class ScanSchedule {
  Auto,            // Chained when batch × channel groups alone fill the device
  ReduceThenScan,  // every chunk at once in three passes: a and b read twice
  Chained,         // one pass, each workgroup walking its channels' chunks: a, b read once
  SinglePass,      // every chunk at once in one pass (decoupled look-back): a, b read once
};

struct ScanOptions {
  ScanPath path = ScanPath::Auto;
  ScanSchedule schedule = ScanSchedule::Auto;
  uint32_t sharedWidth = 32;  // lanes of the Shared path: a power of two, 2 … 256
  uint32_t stepsPerLane = 8;  // a chunk is lanes × stepsPerLane steps
  // Give each invocation a vec4 of values (4 real or 2 complex channels; a dvec4 in fp64)
  // when the rows and the transition's strides are multiples of 4 values: whole-vec4 loads
  // and stores.
  bool packFour = true;
};

const char* scanPathName(ScanPath path);
const char* scanScheduleName(ScanSchedule schedule);

// The shape of a diagonal scan: series, the transition's strides, real or complex.
struct DiagScanShape {
  float_batch::SeriesShape series;
  float_batch::TransitionStrides aStrides;
  bool complex = false;
};

// Device buffers of a diagonal scan. h0 may be null (zero state); scratch holds the chunk
// carries (ScanKernels::diagScanScratchBytes; may be null for Sequential).
struct DiagScanBuffers {
  const Buffer* a = nullptr;
  const Buffer* b = nullptr;
  const Buffer* h0 = nullptr;
  const Buffer* h = nullptr;
  const Buffer* scratch = nullptr;
};

struct CsrBuffers {
  const Buffer* rowPtr = nullptr;  // uint32, C + 1
  const Buffer* col = nullptr;     // uint32, nnz
  const Buffer* val = nullptr;     // real (the kernels' precision), nnz
  // The longest row's non-zeros (sizes the recurrences' dispatches: kernel_support.h's
  // stepsPerDispatch); 0 when unknown, and then nnz stands in for it.
  uint32_t maxRowNonZeros = 0;
};

class ScanKernels {
 public:
  // Throws lsrl::Error naming the device for F64 where it has no shaderFloat64.
  explicit ScanKernels(Device& device, Real real = Real::F32);
  Real real() const { return real_; }

  // The path `options` resolves to on this device (never Auto).
  ScanPath resolve(const ScanOptions& options) const;
  // The schedule a chunked path runs `shape` with on this device (never Auto).
  ScanSchedule resolveSchedule(const DiagScanShape& shape, const ScanOptions& options) const;
  // Time steps per chunk of a chunked path (0 for Sequential).
  uint32_t chunkSteps(const ScanOptions& options) const;
  size_t diagScanScratchBytes(const DiagScanShape& shape, const ScanOptions& options) const;

  // Appends the dispatches of h = scan(a, b, h0). Throws lsrl::Error (naming the kernel,
  // expected vs got) for bad shapes, too-small buffers or unsupported options.
  void recordDiagScan(Batch& batch, const DiagScanBuffers& buffers, const DiagScanShape& shape,
                      const ScanOptions& options = {});
  void recordBlockScan2(Batch& batch, const Buffer& blocks, const Buffer& b, const Buffer* h0,
                        const Buffer& h, const float_batch::SeriesShape& shape);
  // `nonzeros` is A's nnz (the size of col and val); reluState: h_t = ReLU(A h_{t−1} + u_t).
  void recordLinearRecurrence(Batch& batch, const CsrBuffers& A, size_t nonzeros, const Buffer& u,
                              const Buffer* h0, const Buffer& h,
                              const float_batch::SeriesShape& shape, bool reluState = false);

  // Host conveniences with the arguments of the CPU twins (h0 empty: zero state): float
  // values for fp32 kernels, double for fp64 ones (else lsrl::Error).
  std::vector<float> diagScan(const float_batch::SeriesShape& shape, std::span<const float> a,
                              float_batch::TransitionStrides aStrides, std::span<const float> b,
                              std::span<const float> h0, const ScanOptions& options = {});
  std::vector<double> diagScan(const float_batch::SeriesShape& shape, std::span<const double> a,
                               float_batch::TransitionStrides aStrides, std::span<const double> b,
                               std::span<const double> h0, const ScanOptions& options = {});
  std::vector<float> complexDiagScan(const float_batch::SeriesShape& shape,
                                     std::span<const float> a,
                                     float_batch::TransitionStrides aStrides,
                                     std::span<const float> b, std::span<const float> h0,
                                     const ScanOptions& options = {});
  std::vector<double> complexDiagScan(const float_batch::SeriesShape& shape,
                                      std::span<const double> a,
                                      float_batch::TransitionStrides aStrides,
                                      std::span<const double> b, std::span<const double> h0,
                                      const ScanOptions& options = {});
  std::vector<float> blockScan2(const float_batch::SeriesShape& shape,
                                std::span<const float> blocks, std::span<const float> b,
                                std::span<const float> h0);
  std::vector<double> blockScan2(const float_batch::SeriesShape& shape,
                                 std::span<const double> blocks, std::span<const double> b,
                                 std::span<const double> h0);
  std::vector<float> linearRecurrence(const float_batch::SeriesShape& shape,
                                      const float_batch::CsrMatrix& A, std::span<const float> u,
                                      std::span<const float> h0, bool reluState = false);
  std::vector<double> linearRecurrence(const float_batch::SeriesShape& shape,
                                       const float_batch::CsrMatrix64& A, std::span<const double> u,
                                       std::span<const double> h0, bool reluState = false);

  // GPU time (ms, median over `repeats` runs after one warm-up; sum of the scan's
  // dispatches) of a real diagonal scan with time-varying a on random data, for benches.
  // Effective bandwidth: diagScanBytes(shape) / ms.
  double timeDiagScan(const float_batch::SeriesShape& shape, const ScanOptions& options,
                      int repeats = 5);
  // The scan timeDiagScan runs: a real a_t over the whole series (a seed model's gate).
  static DiagScanShape timedScanShape(const float_batch::SeriesShape& shape);
  // GPU time (ms, median over `repeats` runs after one warm-up) of the scan of `shape`
  // over buffers already holding a and b (h0 optional, scratch allocated here).
  double timeDiagScan(const DiagScanBuffers& buffers, const DiagScanShape& shape,
                      const ScanOptions& options, int repeats);
  // Bytes an ideal scan moves: a and b read once, h written once (time-varying a).
  static double diagScanBytes(const float_batch::SeriesShape& shape, Real real = Real::F32);

 private:
  template <class Scalar>
  std::vector<Scalar> runDiagScan(const DiagScanShape& shape, std::span<const Scalar> a,
                                  std::span<const Scalar> b, std::span<const Scalar> h0,
                                  const ScanOptions& options, const char* kernel);
  template <class Scalar>
  std::vector<Scalar> runBlockScan2(const float_batch::SeriesShape& shape,
                                    std::span<const Scalar> blocks, std::span<const Scalar> b,
                                    std::span<const Scalar> h0);
  template <class Scalar>
  std::vector<Scalar> runLinearRecurrence(const float_batch::SeriesShape& shape,
                                          const float_batch::BasicCsrMatrix<Scalar>& A,
                                          std::span<const Scalar> u, std::span<const Scalar> h0,
                                          bool reluState);
  // Throws lsrl::Error naming `kernel` unless Scalar is this instance's precision.
  template <class Scalar>
  void expectValues(const char* kernel) const;
  size_t valueBytes() const { return realBytes(real_); }

  Device& dev_;
  Real real_ = Real::F32;
};

}  // namespace lsrl::gpu
