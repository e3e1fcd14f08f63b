#include "core/gpu/matvec_kernels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "core/gpu/workgroups.h"

namespace lsrl::gpu {

namespace {

constexpr const char* kCsr = "csr_matvec";
constexpr const char* kDense = "dense_matvec";

struct MatvecPush {
  uint32_t rows;  // batch rows
  uint32_t m;
  uint32_t n;
  uint32_t hasBias;
};

// A device copy of `count` values (at least one slot: empty arrays still bind a buffer).
template <class T>
std::shared_ptr<Buffer> uploadArray(Device& dev, const char* kernel, const char* what,
                                    const T* data, size_t count) {
  const size_t bytes = std::max<size_t>(count, 1) * sizeof(T);
  if (bytes > dev.info().maxStorageBufferRange)
    throw Error(std::string(kernel) + ": " + what + " of " + std::to_string(bytes) +
                " bytes exceeds the device's " + std::to_string(dev.info().maxStorageBufferRange) +
                "-byte storage-buffer range");
  auto buffer = dev.buffer(bytes);
  dev.upload(*buffer, data, count * sizeof(T));
  return buffer;
}

template <class Scalar>
std::shared_ptr<Buffer> uploadBias(Device& dev, const char* kernel, std::span<const Scalar> bias) {
  return uploadArray(dev, kernel, "bias", bias.data(), bias.size());
}

void checkBatch(const char* kernel, int m, int n, const Buffer& X, const Buffer& Y, size_t rows,
                Real real = Real::F32) {
  if (m < 1 || n < 1) throw Error(std::string(kernel) + ": no matrix uploaded (0 × 0)");
  float_batch::matvec_checks::batch(kernel, m, n, rows, X.bytes() / realBytes(real),
                                    Y.bytes() / realBytes(real));
}

template <class Scalar>
DeviceCsr uploadCsrOf(Device& dev, const float_batch::BasicCsrMatrix<Scalar>& A,
                      std::span<const Scalar> bias) {
  requireReal(dev.info(), realOf<Scalar>());
  float_batch::matvec_checks::csr(kCsr, A);
  float_batch::matvec_checks::bias(kCsr, A.rows, bias.size());
  DeviceCsr d;
  d.real = realOf<Scalar>();
  d.rows = A.rows;
  d.cols = A.cols;
  d.nonZeros = A.val.size();
  d.maxRowNonZeros = float_batch::maxRowNonZeros(A);
  d.hasBias = !bias.empty();
  d.rowPtr = uploadArray(dev, kCsr, "row pointers", A.rowPtr.data(), A.rowPtr.size());
  d.col = uploadArray(dev, kCsr, "column indices", A.col.data(), A.col.size());
  d.val = uploadArray(dev, kCsr, "values", A.val.data(), A.val.size());
  d.bias = uploadBias(dev, kCsr, bias);
  return d;
}

}  // namespace

DeviceCsr uploadCsr(Device& dev, const float_batch::CsrMatrix& A, std::span<const float> bias) {
  return uploadCsrOf(dev, A, bias);
}

DeviceCsr uploadCsr(Device& dev, const float_batch::CsrMatrix64& A, std::span<const double> bias) {
  return uploadCsrOf(dev, A, bias);
}

DeviceDense uploadDense(Device& dev, const float_batch::DenseMatrix& A,
                        std::span<const float> bias) {
  float_batch::matvec_checks::dense(kDense, A);
  float_batch::matvec_checks::bias(kDense, A.rows, bias.size());
  DeviceDense d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.hasBias = !bias.empty();
  d.val = uploadArray(dev, kDense, "matrix", A.val.data(), A.val.size());
  d.bias = uploadBias(dev, kDense, bias);
  return d;
}

CsrPath chooseCsrPath(const DeviceInfo& info, const DeviceCsr& A) {
  const size_t width = std::max<uint32_t>(info.subgroupSize, 1);
  const bool longRows = A.rows > 0 && A.nonZeros >= width * static_cast<size_t>(A.rows);
  return info.subgroupArithmetic && longRows ? CsrPath::PerSubgroup : CsrPath::PerOutput;
}

void recordCsrMatvec(Device& dev, Batch& batch, const DeviceCsr& A, const Buffer& X, Buffer& Y,
                     size_t rows, CsrPath path) {
  checkBatch(kCsr, A.rows, A.cols, X, Y, rows, A.real);
  const DeviceInfo& info = dev.info();
  // fp64 sums each row by decreasing magnitude, which only the per-output path can.
  if (path == CsrPath::Auto)
    path = A.real == Real::F64 ? CsrPath::PerOutput : chooseCsrPath(info, A);
  // Y fits one buffer, so rows·m < 2^32 and the 32-bit indices of the shaders are safe.
  const MatvecPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(A.rows),
                        static_cast<uint32_t>(A.cols), A.hasBias ? 1u : 0u};
  const size_t outputs = rows * static_cast<size_t>(A.rows);
  const std::initializer_list<const Buffer*> buffers{A.rowPtr.get(), A.col.get(), A.val.get(),
                                                     A.bias.get(),   &X,          &Y};
  if (path == CsrPath::PerOutput) {
    // The fp64 shader's one specialization constant: the terms of a row it sorts.
    std::vector<uint32_t> spec;
    if (A.real == Real::F64) spec.push_back(sortedRowTerms(A.real, A.maxRowNonZeros));
    const Kernel& k = realKernel(dev, kCsr, A.real, 6, sizeof push, spec);
    batch.dispatch(k, buffers, &push, sizeof push, cappedGroups(outputs, k.workgroup().x));
    return;
  }
  if (!info.subgroupArithmetic)
    throw Error(std::string(kCsr) +
                ": the per-subgroup path needs subgroup arithmetic, which the device lacks");
  // At least the table's invocations (core/gpu/workgroups.h) and at least one whole
  // subgroup; the grid assumes the widest subgroup the device may pick, and the shader
  // loops over whatever is left.
  const uint32_t widest = std::max({info.subgroupSize, info.maxSubgroupSize, 1u});
  const uint32_t least = shaderWorkgroup("csr_matvec_subgroup").x;
  const uint32_t local = std::min(std::max(least, widest), std::max(info.maxWorkgroupSize, widest));
  const Kernel& k = realKernel(dev, "csr_matvec_subgroup", A.real, {local}, 6, sizeof push);
  batch.dispatch(k, buffers, &push, sizeof push, cappedGroups(outputs, k.workgroup().x / widest));
}

std::vector<float> runCsrMatvec(Device& dev, const DeviceCsr& A, std::span<const float> X,
                                size_t rows, const TileOptions& options, CsrPath path) {
  if (A.rows < 1) throw Error(std::string(kCsr) + ": no matrix uploaded (0 × 0)");
  if (A.real != Real::F32)
    throw Error(std::string(kCsr) + ": the host batch takes fp32 values, the matrix is " +
                realName(A.real));
  float_batch::matvec_checks::batch(kCsr, A.rows, A.cols, rows, X.size(),
                                    std::numeric_limits<size_t>::max());
  return runRowTiles(dev, kCsr, X, rows, static_cast<size_t>(A.cols), static_cast<size_t>(A.rows),
                     options, [&](Batch& batch, const Buffer& x, Buffer& y, size_t tileRows) {
                       recordCsrMatvec(dev, batch, A, x, y, tileRows, path);
                     });
}

void recordDenseMatvec(Device& dev, Batch& batch, const DeviceDense& A, const Buffer& X, Buffer& Y,
                       size_t rows) {
  checkBatch(kDense, A.rows, A.cols, X, Y, rows);
  const MatvecPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(A.rows),
                        static_cast<uint32_t>(A.cols), A.hasBias ? 1u : 0u};
  const Kernel& k = shaderKernel(dev, kDense, 4, sizeof push);
  // x: tiles of matrix rows (outputs), y: tiles of batch rows; the shader loops over more.
  const WorkgroupSize tile = k.workgroup();
  batch.dispatch(k, {A.val.get(), A.bias.get(), &X, &Y}, &push, sizeof push,
                 cappedGroups(static_cast<size_t>(A.rows), tile.x), cappedGroups(rows, tile.y));
}

std::vector<float> runDenseMatvec(Device& dev, const DeviceDense& A, std::span<const float> X,
                                  size_t rows, const TileOptions& options) {
  if (A.rows < 1) throw Error(std::string(kDense) + ": no matrix uploaded (0 × 0)");
  float_batch::matvec_checks::batch(kDense, A.rows, A.cols, rows, X.size(),
                                    std::numeric_limits<size_t>::max());
  return runRowTiles(dev, kDense, X, rows, static_cast<size_t>(A.cols), static_cast<size_t>(A.rows),
                     options, [&](Batch& batch, const Buffer& x, Buffer& y, size_t tileRows) {
                       recordDenseMatvec(dev, batch, A, x, y, tileRows);
                     });
}

}  // namespace lsrl::gpu
