#include "core/gpu/row_tiles.h"

#include <algorithm>
#include <memory>
#include <string>

namespace lsrl::gpu {

std::vector<float> runRowTiles(Device& dev, std::string_view kernel, std::span<const float> X,
                               size_t rows, size_t inWidth, size_t outWidth,
                               const TileOptions& options, const RecordRows& record) {
  std::vector<std::vector<float>> Y = runRowTiles(
      dev, kernel, {{X, inWidth}}, rows, {outWidth}, options,
      [&](Batch& batch, const std::vector<const Buffer*>& in, const std::vector<Buffer*>& out,
          size_t count) { record(batch, *in[0], *out[0], count); });
  return std::move(Y[0]);
}

std::vector<std::vector<float>> runRowTiles(Device& dev, std::string_view kernel,
                                            const std::vector<TiledInput>& inputs, size_t rows,
                                            const std::vector<size_t>& outWidths,
                                            const TileOptions& options, const RecordTiles& record) {
  size_t widest = 1;
  for (const TiledInput& input : inputs) widest = std::max(widest, input.width);
  for (size_t width : outWidths) widest = std::max(widest, width);
  const size_t rowBytes = widest * sizeof(float);
  const size_t range = dev.info().maxStorageBufferRange;
  if (rowBytes > range)
    throw Error(std::string(kernel) + ": a row of " + std::to_string(widest) +
                " floats exceeds the device's " + std::to_string(range) +
                "-byte storage-buffer range");
  size_t tileRows = std::min(rows, range / rowBytes);
  if (options.maxTileRows > 0) tileRows = std::min(tileRows, options.maxTileRows);
  tileRows = std::max<size_t>(tileRows, 1);

  auto tileBuffer = [&](size_t width) {
    return dev.buffer(std::max<size_t>(tileRows * width, 1) * sizeof(float));
  };
  std::vector<std::shared_ptr<Buffer>> inBuffers, outBuffers;
  std::vector<const Buffer*> in;
  std::vector<Buffer*> out;
  for (const TiledInput& input : inputs)
    in.push_back(inBuffers.emplace_back(tileBuffer(input.width)).get());
  std::vector<std::vector<float>> Y;
  for (size_t width : outWidths) {
    out.push_back(outBuffers.emplace_back(tileBuffer(width)).get());
    Y.emplace_back(rows * width);
  }
  for (size_t first = 0; first < rows; first += tileRows) {
    const size_t count = std::min(tileRows, rows - first);
    for (size_t k = 0; k < inputs.size(); ++k)
      dev.upload(*inBuffers[k], inputs[k].data.data() + first * inputs[k].width,
                 count * inputs[k].width * sizeof(float));
    Batch batch = dev.batch(options.kernelMs != nullptr ? Timing::PerDispatch : Timing::Off);
    record(batch, in, out, count);
    const std::vector<double> ms = dev.run(batch);
    if (options.kernelMs != nullptr)
      options.kernelMs->insert(options.kernelMs->end(), ms.begin(), ms.end());
    for (size_t k = 0; k < outWidths.size(); ++k)
      dev.download(*outBuffers[k], Y[k].data() + first * outWidths[k],
                   count * outWidths[k] * sizeof(float));
  }
  return Y;
}

}  // namespace lsrl::gpu
