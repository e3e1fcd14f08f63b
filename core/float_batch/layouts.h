// The batch layouts shared by the CPU kernels (core/float_batch) and their Vulkan twins
// (core/gpu): plain row-major arrays of float (or double), described by small shape
// structs.
//
//   batch of vectors   x[b][i]          B × n, i innermost
//   time series        x[b][t][c]       B × T × C, channel innermost
//   complex series     x[b][t][c][2]    (re, im) interleaved
//   CSR matrix         rowPtr (m+1), col, val: y = A·x + bias, A is m × n
#pragma once

#include <cstdint>
#include <vector>

namespace lsrl::float_batch {

// Values are float (the fp32 runners) or double (the device's fp64 path, docs/vulkan.md).
template <class Scalar>
struct BasicCsrMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<uint32_t> rowPtr{0};
  std::vector<uint32_t> col;
  std::vector<Scalar> val;
};
using CsrMatrix = BasicCsrMatrix<float>;
using CsrMatrix64 = BasicCsrMatrix<double>;

// The most non-zeros in one row.
template <class Scalar>
uint32_t maxRowNonZeros(const BasicCsrMatrix<Scalar>& m) {
  uint32_t most = 0;
  for (size_t r = 0; r + 1 < m.rowPtr.size(); ++r)
    most = m.rowPtr[r + 1] - m.rowPtr[r] > most ? m.rowPtr[r + 1] - m.rowPtr[r] : most;
  return most;
}

struct SeriesShape {
  int batch = 1;     // B
  int steps = 1;     // T
  int channels = 1;  // C (for complex series: complex channels)
};

// Strides (in elements, per channel slot) of the transition a_t of a diagonal scan: a
// LinState's constant diagonal has batchStride = stepStride = 0 (one a[c] for all), a
// seed model's input-dependent gate has the full series' strides.
struct TransitionStrides {
  long long batchStride = 0;
  long long stepStride = 0;
};

}  // namespace lsrl::float_batch
