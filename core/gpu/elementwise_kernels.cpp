#include "core/gpu/elementwise_kernels.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/float_batch/elementwise.h"

namespace lsrl::gpu {

namespace {

// binary.comp's operation (its specialization constant OP).
enum class BinaryOp : uint32_t { Add = 0, Mul = 1 };

void recordBinary(Device& dev, Batch& batch, BinaryOp op, const char* kernel, const Buffer& x,
                  const Buffer& y, Buffer& out, size_t count, Real real = Real::F32) {
  const size_t bytes = realBytes(real);
  float_batch::elementwise_checks::binary(kernel, count, x.bytes() / bytes, y.bytes() / bytes,
                                          out.bytes() / bytes);
  const uint32_t push = static_cast<uint32_t>(count);
  const Kernel& k = realKernel(dev, "binary", real, 3, sizeof push, {static_cast<uint32_t>(op)});
  batch.dispatch(k, {&x, &y, &out}, &push, sizeof push, cappedGroups(count, k.workgroup().x));
}

std::vector<float> runBinary(Device& dev, BinaryOp op, const char* kernel, std::span<const float> x,
                             std::span<const float> y, const TileOptions& options) {
  float_batch::elementwise_checks::binary(kernel, x.size(), x.size(), y.size(), x.size());
  if (y.size() != x.size())
    throw Error(std::string(kernel) + ": inputs of the same length expected, got " +
                std::to_string(x.size()) + " and " + std::to_string(y.size()));
  auto Y = runRowTiles(
      dev, kernel, {{x, 1}, {y, 1}}, x.size(), {1}, options,
      [&](Batch& batch, const std::vector<const Buffer*>& in, const std::vector<Buffer*>& out,
          size_t count) { recordBinary(dev, batch, op, kernel, *in[0], *in[1], *out[0], count); });
  return std::move(Y[0]);
}

struct MultiPush {
  uint32_t rows;
  uint32_t h;
};

}  // namespace

void recordRelu(Device& dev, Batch& batch, const Buffer& in, Buffer& out, size_t count, Real real) {
  // Buffers fit the storage-buffer range, so count < 2^32 once the sizes check out.
  float_batch::elementwise_checks::relu("relu", count, in.bytes() / realBytes(real),
                                        out.bytes() / realBytes(real));
  const uint32_t push = static_cast<uint32_t>(count);
  const Kernel& k = realKernel(dev, "relu", real, 2, sizeof push);
  batch.dispatch(k, {&in, &out}, &push, sizeof push, cappedGroups(count, k.workgroup().x));
}

std::vector<float> runRelu(Device& dev, std::span<const float> in, const TileOptions& options) {
  float_batch::elementwise_checks::relu("relu", in.size(), in.size(), in.size());
  return runRowTiles(dev, "relu", in, in.size(), 1, 1, options,
                     [&](Batch& batch, const Buffer& x, Buffer& y, size_t count) {
                       recordRelu(dev, batch, x, y, count);
                     });
}

void recordMulti(Device& dev, Batch& batch, const Buffer& X, Buffer& Y, size_t rows, size_t h,
                 Real real) {
  float_batch::elementwise_checks::multi("multi", rows, h, X.bytes() / realBytes(real),
                                         Y.bytes() / realBytes(real));
  const MultiPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(h)};
  const Kernel& k = realKernel(dev, "multi", real, 2, sizeof push);
  batch.dispatch(k, {&X, &Y}, &push, sizeof push, cappedGroups(rows * h, k.workgroup().x));
}

std::vector<float> runMulti(Device& dev, std::span<const float> X, size_t rows, size_t h,
                            const TileOptions& options) {
  float_batch::elementwise_checks::multi("multi", rows, h, X.size(),
                                         std::numeric_limits<size_t>::max());
  return runRowTiles(dev, "multi", X, rows, 2 * h, h, options,
                     [&](Batch& batch, const Buffer& x, Buffer& y, size_t tileRows) {
                       recordMulti(dev, batch, x, y, tileRows, h);
                     });
}

void recordAdd(Device& dev, Batch& batch, const Buffer& x, const Buffer& y, Buffer& out,
               size_t count, Real real) {
  recordBinary(dev, batch, BinaryOp::Add, "add", x, y, out, count, real);
}

void recordMul(Device& dev, Batch& batch, const Buffer& x, const Buffer& y, Buffer& out,
               size_t count, Real real) {
  recordBinary(dev, batch, BinaryOp::Mul, "mul", x, y, out, count, real);
}

std::vector<float> runAdd(Device& dev, std::span<const float> x, std::span<const float> y,
                          const TileOptions& options) {
  return runBinary(dev, BinaryOp::Add, "add", x, y, options);
}

std::vector<float> runMul(Device& dev, std::span<const float> x, std::span<const float> y,
                          const TileOptions& options) {
  return runBinary(dev, BinaryOp::Mul, "mul", x, y, options);
}

}  // namespace lsrl::gpu
