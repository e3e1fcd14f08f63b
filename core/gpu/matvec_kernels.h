// Linear layers on the device: a CSR or dense matrix times a batch of vectors,
// Y[r] = A·X[r] + bias for r < rows (rows = B·T when a layer is applied to every token).
// The CPU twins and the input checks are core/float_batch/matvec.h.
//
// A matrix is uploaded once (DeviceCsr, DeviceDense) and reused for many batches. Two
// levels: record…() appends the dispatch to a Batch over device buffers holding one tile
// of rows (so a model runner can chain many kernels in one submission), and run…() takes
// a host batch of any size, tiles it to the buffer range, and returns Y.
//
// CSR paths (CsrPath):
//   PerOutput    one invocation per output (r, i), summing its CSR row serially. Outputs
//                are numbered r·m + i, so neighbouring invocations share the row X[r].
//                LSRL's compiled matrices have a few non-zeros per row: this is the path.
//   PerSubgroup  one subgroup per output: its lanes stride over the CSR row and
//                subgroupAdd the partial sums. For long rows (and small batches).
//   Auto         PerSubgroup when the device has subgroup arithmetic and the mean row
//                holds at least a subgroup's width of non-zeros, else PerOutput; in fp64
//                always PerOutput, which sums a row by decreasing magnitude as the float64
//                executor does (real.h's sortedRowTerms; PerSubgroup adds in lane order).
// Dense: 16 × 16 output tiles (batch rows × matrix rows) per workgroup, the shared
// dimension staged through shared memory 16 columns at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/float_batch/matvec.h"
#include "core/gpu/device.h"
#include "core/gpu/real.h"
#include "core/gpu/row_tiles.h"

namespace lsrl::gpu {

struct DeviceCsr {
  Real real = Real::F32;  // of val, bias and the X, Y it multiplies (the CSR paths only)
  int rows = 0;           // m
  int cols = 0;           // n
  size_t nonZeros = 0;
  uint32_t maxRowNonZeros = 0;  // the longest row's
  bool hasBias = false;
  std::shared_ptr<Buffer> rowPtr, col, val, bias;  // bias: a 1-float placeholder when none
};

struct DeviceDense {
  int rows = 0;
  int cols = 0;
  bool hasBias = false;
  std::shared_ptr<Buffer> val, bias;
};

// Checks A and bias (empty or m long) and uploads them. Throws lsrl::Error naming the kernel
// (and the device, for doubles where it has no shaderFloat64).
DeviceCsr uploadCsr(Device& dev, const float_batch::CsrMatrix& A, std::span<const float> bias);
DeviceCsr uploadCsr(Device& dev, const float_batch::CsrMatrix64& A, std::span<const double> bias);
DeviceDense uploadDense(Device& dev, const float_batch::DenseMatrix& A,
                        std::span<const float> bias);

enum class CsrPath { Auto, PerOutput, PerSubgroup };

// The path Auto takes for A on this device.
CsrPath chooseCsrPath(const DeviceInfo& info, const DeviceCsr& A);

// Y[r] = A·X[r] + bias for r < rows; X holds rows × n values, Y rows × m, in A.real.
void recordCsrMatvec(Device& dev, Batch& batch, const DeviceCsr& A, const Buffer& X, Buffer& Y,
                     size_t rows, CsrPath path = CsrPath::Auto);
// fp32 matrices only (A.real = F32).
std::vector<float> runCsrMatvec(Device& dev, const DeviceCsr& A, std::span<const float> X,
                                size_t rows, const TileOptions& options = {},
                                CsrPath path = CsrPath::Auto);

void recordDenseMatvec(Device& dev, Batch& batch, const DeviceDense& A, const Buffer& X, Buffer& Y,
                       size_t rows);
std::vector<float> runDenseMatvec(Device& dev, const DeviceDense& A, std::span<const float> X,
                                  size_t rows, const TileOptions& options = {});

}  // namespace lsrl::gpu
