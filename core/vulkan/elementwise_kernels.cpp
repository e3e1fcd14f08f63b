#include "core/vulkan/elementwise_kernels.h"

#include <cstdint>
#include <limits>

#include "core/batch/elementwise.h"
#include "core/vulkan/shaders.h"

namespace lsrl::gpu {

namespace {

constexpr uint32_t kGroup = 256;  // local_size_x of relu.comp and multi.comp

struct MultiPush {
  uint32_t rows;
  uint32_t h;
};

}  // namespace

void recordRelu(Device& dev, Batch& batch, const Buffer& in, Buffer& out, size_t count) {
  // Buffers fit the storage-buffer range, so count < 2^32 once the sizes check out.
  batch::elementwise_checks::relu("relu", count, in.bytes() / sizeof(float),
                                  out.bytes() / sizeof(float));
  const uint32_t push = static_cast<uint32_t>(count);
  const Kernel& k = dev.kernel("relu", shaderCode("relu"), 2, sizeof push);
  batch.dispatch(k, {&in, &out}, &push, sizeof push, cappedGroups(count, kGroup));
}

std::vector<float> runRelu(Device& dev, std::span<const float> in, const TileOptions& options) {
  batch::elementwise_checks::relu("relu", in.size(), in.size(), in.size());
  return runRowTiles(dev, "relu", in, in.size(), 1, 1, options,
                     [&](Batch& batch, const Buffer& x, Buffer& y, size_t count) {
                       recordRelu(dev, batch, x, y, count);
                     });
}

void recordMulti(Device& dev, Batch& batch, const Buffer& X, Buffer& Y, size_t rows, size_t h) {
  batch::elementwise_checks::multi("multi", rows, h, X.bytes() / sizeof(float),
                                   Y.bytes() / sizeof(float));
  const MultiPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(h)};
  const Kernel& k = dev.kernel("multi", shaderCode("multi"), 2, sizeof push);
  batch.dispatch(k, {&X, &Y}, &push, sizeof push, cappedGroups(rows * h, kGroup));
}

std::vector<float> runMulti(Device& dev, std::span<const float> X, size_t rows, size_t h,
                            const TileOptions& options) {
  batch::elementwise_checks::multi("multi", rows, h, X.size(), std::numeric_limits<size_t>::max());
  return runRowTiles(dev, "multi", X, rows, 2 * h, h, options,
                     [&](Batch& batch, const Buffer& x, Buffer& y, size_t tileRows) {
                       recordMulti(dev, batch, x, y, tileRows, h);
                     });
}

}  // namespace lsrl::gpu
