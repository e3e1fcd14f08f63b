// Running a row-wise kernel over a batch larger than one dispatch or one buffer can hold.
//
// Two device limits shape every batch kernel: a storage buffer spans at most
// maxStorageBufferRange bytes (128 MiB on lavapipe), so a host batch is cut into tiles of
// whole rows that each fit; and a dispatch has at most maxComputeWorkGroupCount groups per
// dimension (65,535 is all Vulkan guarantees), so kernels loop grid-stride over the items
// a capped grid does not reach.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/gpu/device.h"

namespace lsrl::gpu {

// Vulkan's guaranteed minimum of maxComputeWorkGroupCount in every dimension.
inline constexpr uint32_t kMaxGroupsPerDimension = 65535;

// Workgroups for `items`, `perGroup` each, capped (the kernel loops over the rest).
inline uint32_t cappedGroups(size_t items, uint32_t perGroup) {
  const uint32_t groups = groupsFor(items, perGroup);
  return groups < kMaxGroupsPerDimension ? groups : kMaxGroupsPerDimension;
}

struct TileOptions {
  size_t maxTileRows = 0;                   // 0: as many rows as one buffer holds
  std::vector<double>* kernelMs = nullptr;  // when set, each tile's GPU kernel time is appended
};

// Records the kernel for `rows` rows of `x` into `y` (buffers holding at least that many).
using RecordRows = std::function<void(Batch& batch, const Buffer& x, Buffer& y, size_t rows)>;

// Uploads X (rows × inWidth floats) tile by tile, records and runs each tile, and returns
// Y (rows × outWidth floats). Throws lsrl::Error naming `kernel` when one row alone
// exceeds the device's buffer range.
std::vector<float> runRowTiles(Device& dev, std::string_view kernel, std::span<const float> X,
                               size_t rows, size_t inWidth, size_t outWidth,
                               const TileOptions& options, const RecordRows& record);

// Several inputs and outputs cut into the same tiles of whole rows (binary and multi-input
// kernels): input k is rows × inputs[k].width floats, output k rows × outWidths[k].
struct TiledInput {
  std::span<const float> data;
  size_t width = 1;
};
using RecordTiles = std::function<void(Batch& batch, const std::vector<const Buffer*>& in,
                                       const std::vector<Buffer*>& out, size_t rows)>;
std::vector<std::vector<float>> runRowTiles(Device& dev, std::string_view kernel,
                                            const std::vector<TiledInput>& inputs, size_t rows,
                                            const std::vector<size_t>& outWidths,
                                            const TileOptions& options, const RecordTiles& record);

}  // namespace lsrl::gpu
