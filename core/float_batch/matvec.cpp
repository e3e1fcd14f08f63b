#include "core/float_batch/matvec.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/util/error.h"

namespace lsrl::float_batch {

namespace {

std::string label(std::string_view kernel) { return std::string(kernel) + ": "; }

// a·b, or an error naming `kernel` when it does not fit in size_t.
size_t product(std::string_view kernel, size_t a, size_t b, std::string_view what) {
  if (b != 0 && a > std::numeric_limits<size_t>::max() / b)
    throw Error(label(kernel) + std::string(what) + " of " + std::to_string(a) + " × " +
                std::to_string(b) + " floats overflows");
  return a * b;
}

// Batch rows are processed kBlock at a time so every matrix entry loaded serves kBlock
// outputs (kBlock independent sums the CPU can overlap).
constexpr size_t kBlock = 8;

// One batch row: each output sums its CSR row in column order.
void csrRow(const CsrMatrix& A, std::span<const float> bias, const float* x, float* y) {
  for (size_t i = 0; i < static_cast<size_t>(A.rows); ++i) {
    float sum = 0.0f;
    for (uint32_t k = A.rowPtr[i]; k < A.rowPtr[i + 1]; ++k) sum += A.val[k] * x[A.col[k]];
    y[i] = sum + (bias.empty() ? 0.0f : bias[i]);
  }
}

// X rows x[0..kBlock) transposed into xt[c][r], so that the kBlock products of one matrix
// entry read contiguous memory (one vector multiply-add instead of kBlock strided loads).
void transposeBlock(const float* x, size_t n, float* xt) {
  for (size_t r = 0; r < kBlock; ++r)
    for (size_t c = 0; c < n; ++c) xt[c * kBlock + r] = x[r * n + c];
}

// kBlock batch rows through their transpose; each sum still runs over its CSR row in
// column order.
void csrBlock(const CsrMatrix& A, std::span<const float> bias, const float* x, float* y,
              float* xt) {
  const size_t m = static_cast<size_t>(A.rows);
  transposeBlock(x, static_cast<size_t>(A.cols), xt);
  for (size_t i = 0; i < m; ++i) {
    float sum[kBlock] = {};
    for (uint32_t k = A.rowPtr[i]; k < A.rowPtr[i + 1]; ++k) {
      const float v = A.val[k];
      const float* xc = xt + static_cast<size_t>(A.col[k]) * kBlock;
      for (size_t r = 0; r < kBlock; ++r) sum[r] += v * xc[r];
    }
    const float b = bias.empty() ? 0.0f : bias[i];
    for (size_t r = 0; r < kBlock; ++r) y[r * m + i] = sum[r] + b;
  }
}

// One batch row of a dense matrix: each output sums k in order.
void denseRow(const DenseMatrix& A, std::span<const float> bias, const float* x, float* y) {
  const size_t n = static_cast<size_t>(A.cols);
  for (size_t i = 0; i < static_cast<size_t>(A.rows); ++i) {
    const float* a = A.val.data() + i * n;
    float sum = 0.0f;
    for (size_t k = 0; k < n; ++k) sum += a[k] * x[k];
    y[i] = sum + (bias.empty() ? 0.0f : bias[i]);
  }
}

void denseBlock(const DenseMatrix& A, std::span<const float> bias, const float* x, float* y,
                float* xt) {
  const size_t n = static_cast<size_t>(A.cols);
  const size_t m = static_cast<size_t>(A.rows);
  transposeBlock(x, n, xt);
  for (size_t i = 0; i < m; ++i) {
    const float* a = A.val.data() + i * n;
    float sum[kBlock] = {};
    for (size_t k = 0; k < n; ++k)
      for (size_t r = 0; r < kBlock; ++r) sum[r] += a[k] * xt[k * kBlock + r];
    const float b = bias.empty() ? 0.0f : bias[i];
    for (size_t r = 0; r < kBlock; ++r) y[r * m + i] = sum[r] + b;
  }
}

// Runs `full` over whole blocks of kBlock batch rows and `one` over the rows left.
template <class Full, class One>
void overBlocks(size_t rows, size_t n, size_t m, const float* x, float* y, Full full, One one) {
  size_t r = 0;
  for (; r + kBlock <= rows; r += kBlock) full(x + r * n, y + r * m);
  for (; r < rows; ++r) one(x + r * n, y + r * m);
}

}  // namespace

namespace matvec_checks {

template <class Scalar>
void csr(std::string_view kernel, const BasicCsrMatrix<Scalar>& A) {
  if (A.rows < 1 || A.cols < 1)
    throw Error(label(kernel) + "matrix of at least 1 × 1 expected, got " + std::to_string(A.rows) +
                " × " + std::to_string(A.cols));
  const size_t m = static_cast<size_t>(A.rows);
  if (A.rowPtr.size() != m + 1)
    throw Error(label(kernel) + std::to_string(m + 1) + " row pointers expected, got " +
                std::to_string(A.rowPtr.size()));
  if (A.rowPtr.front() != 0)
    throw Error(label(kernel) + "row pointer 0 expected 0, got " +
                std::to_string(A.rowPtr.front()));
  for (size_t i = 0; i < m; ++i) {
    if (A.rowPtr[i + 1] < A.rowPtr[i])
      throw Error(label(kernel) + "row pointers must not decrease: row " + std::to_string(i) +
                  " starts at " + std::to_string(A.rowPtr[i]) + ", ends at " +
                  std::to_string(A.rowPtr[i + 1]));
  }
  const size_t nnz = A.rowPtr.back();
  if (A.col.size() != nnz || A.val.size() != nnz)
    throw Error(label(kernel) + std::to_string(nnz) + " column indices and values expected, got " +
                std::to_string(A.col.size()) + " and " + std::to_string(A.val.size()));
  for (size_t k = 0; k < nnz; ++k) {
    if (A.col[k] >= static_cast<uint32_t>(A.cols))
      throw Error(label(kernel) + "column index < " + std::to_string(A.cols) + " expected, got " +
                  std::to_string(A.col[k]) + " (entry " + std::to_string(k) + ")");
  }
}

template void csr(std::string_view, const CsrMatrix&);
template void csr(std::string_view, const CsrMatrix64&);

void dense(std::string_view kernel, const DenseMatrix& A) {
  if (A.rows < 1 || A.cols < 1)
    throw Error(label(kernel) + "matrix of at least 1 × 1 expected, got " + std::to_string(A.rows) +
                " × " + std::to_string(A.cols));
  const size_t count =
      product(kernel, static_cast<size_t>(A.rows), static_cast<size_t>(A.cols), "matrix");
  if (A.val.size() != count)
    throw Error(label(kernel) + std::to_string(count) + " matrix values expected, got " +
                std::to_string(A.val.size()));
}

void bias(std::string_view kernel, int m, size_t biasSize) {
  if (biasSize != 0 && biasSize != static_cast<size_t>(m))
    throw Error(label(kernel) + "bias of 0 or " + std::to_string(m) + " values expected, got " +
                std::to_string(biasSize));
}

void batch(std::string_view kernel, int m, int n, size_t rows, size_t xFloats, size_t yFloats) {
  if (rows < 1) throw Error(label(kernel) + "at least 1 batch row expected, got 0");
  const size_t xNeed = product(kernel, rows, static_cast<size_t>(n), "input");
  const size_t yNeed = product(kernel, rows, static_cast<size_t>(m), "output");
  if (xFloats < xNeed)
    throw Error(label(kernel) + "input of " + std::to_string(rows) + " rows × " +
                std::to_string(n) + " = " + std::to_string(xNeed) + " floats expected, got " +
                std::to_string(xFloats));
  if (yFloats < yNeed)
    throw Error(label(kernel) + "output of " + std::to_string(rows) + " rows × " +
                std::to_string(m) + " = " + std::to_string(yNeed) + " floats expected, got " +
                std::to_string(yFloats));
}

}  // namespace matvec_checks

void csrMatvec(const CsrMatrix& A, std::span<const float> bias, std::span<const float> X,
               size_t rows, std::span<float> Y) {
  constexpr std::string_view kKernel = "csr_matvec";
  matvec_checks::csr(kKernel, A);
  matvec_checks::bias(kKernel, A.rows, bias.size());
  matvec_checks::batch(kKernel, A.rows, A.cols, rows, X.size(), Y.size());
  std::vector<float> xt(kBlock * static_cast<size_t>(A.cols));
  overBlocks(
      rows, static_cast<size_t>(A.cols), static_cast<size_t>(A.rows), X.data(), Y.data(),
      [&](const float* x, float* y) { csrBlock(A, bias, x, y, xt.data()); },
      [&](const float* x, float* y) { csrRow(A, bias, x, y); });
}

std::vector<float> csrMatvec(const CsrMatrix& A, std::span<const float> bias,
                             std::span<const float> X, size_t rows) {
  // Checked before allocating, so absurd row counts are errors rather than bad_alloc.
  matvec_checks::csr("csr_matvec", A);
  matvec_checks::batch("csr_matvec", A.rows, A.cols, rows, X.size(),
                       std::numeric_limits<size_t>::max());
  std::vector<float> Y(rows * static_cast<size_t>(A.rows));
  csrMatvec(A, bias, X, rows, Y);
  return Y;
}

void denseMatvec(const DenseMatrix& A, std::span<const float> bias, std::span<const float> X,
                 size_t rows, std::span<float> Y) {
  constexpr std::string_view kKernel = "dense_matvec";
  matvec_checks::dense(kKernel, A);
  matvec_checks::bias(kKernel, A.rows, bias.size());
  matvec_checks::batch(kKernel, A.rows, A.cols, rows, X.size(), Y.size());
  std::vector<float> xt(kBlock * static_cast<size_t>(A.cols));
  overBlocks(
      rows, static_cast<size_t>(A.cols), static_cast<size_t>(A.rows), X.data(), Y.data(),
      [&](const float* x, float* y) { denseBlock(A, bias, x, y, xt.data()); },
      [&](const float* x, float* y) { denseRow(A, bias, x, y); });
}

std::vector<float> denseMatvec(const DenseMatrix& A, std::span<const float> bias,
                               std::span<const float> X, size_t rows) {
  // Checked before allocating, so absurd row counts are errors rather than bad_alloc.
  matvec_checks::dense("dense_matvec", A);
  matvec_checks::batch("dense_matvec", A.rows, A.cols, rows, X.size(),
                       std::numeric_limits<size_t>::max());
  std::vector<float> Y(rows * static_cast<size_t>(A.rows));
  denseMatvec(A, bias, X, rows, Y);
  return Y;
}

}  // namespace lsrl::float_batch
