// Hawk's per-channel kernels on the device, twins of core/float_batch/conv_lru.h (same layouts,
// same arguments): the depthwise causal convolution, and the RG-LRU's transition a and
// input b for the diagonal scan (scan_kernels.h, full series' strides).
//
// Two levels, as the element-wise kernels: record…() appends the dispatch to a Batch over
// device buffers, run…() takes host data, tiles it to the device's buffer range (whole
// sequences for the convolution, rows of C channels for the RG-LRU) and returns the result.
#pragma once

#include <span>
#include <vector>

#include "core/float_batch/layouts.h"
#include "core/gpu/device.h"
#include "core/gpu/row_tiles.h"

namespace lsrl::gpu {

// out[b][t][c] = bias[c] + Σ_{j ≤ min(K−1, t)} taps[c][K−1−j] · x[b][t−j][c]; taps [C][K].
void recordCausalConv1d(Device& dev, Batch& batch, const Buffer& taps, int K, const Buffer& bias,
                        const Buffer& x, Buffer& out, const float_batch::SeriesShape& shape);
std::vector<float> runCausalConv1d(Device& dev, const float_batch::SeriesShape& shape,
                                   std::span<const float> taps, int K, std::span<const float> bias,
                                   std::span<const float> x, const TileOptions& options = {});

// e = lruC·r; a = 1 if e = 0, else 0 if base[c] = 0, else base[c]^e; bOut = √(1 − a²)·(i·u).
// base is C floats ≥ 0 (ReLU(Λ)); r, i, u, a, bOut are [b][t][c].
void recordRgLruInputs(Device& dev, Batch& batch, const Buffer& base, float lruC, const Buffer& r,
                       const Buffer& i, const Buffer& u, Buffer& a, Buffer& bOut,
                       const float_batch::SeriesShape& shape);
void runRgLruInputs(Device& dev, const float_batch::SeriesShape& shape, std::span<const float> base,
                    float lruC, std::span<const float> r, std::span<const float> i,
                    std::span<const float> u, std::span<float> a, std::span<float> bOut,
                    const TileOptions& options = {});

}  // namespace lsrl::gpu
