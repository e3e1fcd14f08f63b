// A plain buffer copy on the device: the bandwidth baseline that `lsrl bench vulkan`
// reports the scans against (the best a memory-bound kernel can do on this device).
#pragma once

#include <cstddef>

#include "core/gpu/device.h"

namespace lsrl::gpu {

// Copies the first `bytes` (a multiple of 16) of `from` into `to`.
void recordCopy(Device& dev, Batch& batch, const Buffer& from, const Buffer& to, size_t bytes);

// GPU time (ms) of copying `bytes`, median of `repeats` runs after one warm-up.
// Bandwidth: 2 · bytes (read once, written once) / time.
double timeCopy(Device& dev, size_t bytes, int repeats = 5);

}  // namespace lsrl::gpu
