// The fp32 CPU twins of the Linear-layer kernels (core/gpu/matvec_kernels.h): a matrix
// times a batch of vectors, Y[r] = A·X[r] + bias for r < rows. rows is B·T when a Linear
// layer is applied to every token of B sequences at once, so these loops are also the CPU
// baseline the Vulkan kernels are benchmarked against.
//
// Layouts of layouts.h: X is rows × n and Y rows × m, row-major (i innermost). A bias is
// empty (zero) or m long. Each output sums its terms in column order, then adds the bias,
// exactly as the Vulkan kernels do.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/float_batch/layouts.h"

namespace lsrl::float_batch {

// A dense m × n matrix, row-major.
struct DenseMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> val;
};

void csrMatvec(const CsrMatrix& A, std::span<const float> bias, std::span<const float> X,
               size_t rows, std::span<float> Y);
std::vector<float> csrMatvec(const CsrMatrix& A, std::span<const float> bias,
                             std::span<const float> X, size_t rows);

void denseMatvec(const DenseMatrix& A, std::span<const float> bias, std::span<const float> X,
                 size_t rows, std::span<float> Y);
std::vector<float> denseMatvec(const DenseMatrix& A, std::span<const float> bias,
                               std::span<const float> X, size_t rows);

// Input checks shared with the Vulkan kernels. Each throws lsrl::Error whose message names
// `kernel` and the expected vs the actual value.
namespace matvec_checks {
// m, n ≥ 1, rowPtr has m + 1 non-decreasing entries from 0 to nnz, col and val nnz long,
// every column < n. For float and double values.
template <class Scalar>
void csr(std::string_view kernel, const BasicCsrMatrix<Scalar>& A);
// m, n ≥ 1 and val m·n long.
void dense(std::string_view kernel, const DenseMatrix& A);
// bias is empty or m long.
void bias(std::string_view kernel, int m, size_t biasSize);
// rows ≥ 1 and X, Y hold rows·n and rows·m floats (`xFloats`, `yFloats` are what is there).
void batch(std::string_view kernel, int m, int n, size_t rows, size_t xFloats, size_t yFloats);
}  // namespace matvec_checks

}  // namespace lsrl::float_batch
