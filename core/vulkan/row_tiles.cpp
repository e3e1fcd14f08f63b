#include "core/vulkan/row_tiles.h"

#include <algorithm>
#include <string>

namespace lsrl::gpu {

std::vector<float> runRowTiles(Device& dev, std::string_view kernel, std::span<const float> X,
                               size_t rows, size_t inWidth, size_t outWidth,
                               const TileOptions& options, const RecordRows& record) {
  const size_t widest = std::max({inWidth, outWidth, size_t{1}});
  const size_t rowBytes = widest * sizeof(float);
  const size_t range = dev.info().maxStorageBufferRange;
  if (rowBytes > range)
    throw Error(std::string(kernel) + ": a row of " + std::to_string(widest) +
                " floats exceeds the device's " + std::to_string(range) +
                "-byte storage-buffer range");
  size_t tileRows = std::min(rows, range / rowBytes);
  if (options.maxTileRows > 0) tileRows = std::min(tileRows, options.maxTileRows);
  tileRows = std::max<size_t>(tileRows, 1);

  std::vector<float> Y(rows * outWidth);
  auto x = dev.buffer(std::max<size_t>(tileRows * inWidth, 1) * sizeof(float));
  auto y = dev.buffer(std::max<size_t>(tileRows * outWidth, 1) * sizeof(float));
  for (size_t first = 0; first < rows; first += tileRows) {
    const size_t count = std::min(tileRows, rows - first);
    dev.upload(*x, X.data() + first * inWidth, count * inWidth * sizeof(float));
    Batch batch = dev.batch();
    record(batch, *x, *y, count);
    const std::vector<double> ms = dev.run(batch);
    if (options.kernelMs != nullptr)
      options.kernelMs->insert(options.kernelMs->end(), ms.begin(), ms.end());
    dev.download(*y, Y.data() + first * outWidth, count * outWidth * sizeof(float));
  }
  return Y;
}

}  // namespace lsrl::gpu
