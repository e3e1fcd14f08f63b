// Element-wise kernels on the device: ReLU, LSRL's Multi gate, and the binary sum and
// product (one shader, binary.comp, the operation a specialization constant). The CPU
// twins and the input checks are core/float_batch/elementwise.h.
//
// Two levels: record…() appends the dispatch to a Batch over device buffers (a model
// runner chains them) of fp32 or fp64 values (`real`), run…() takes host fp32 data of any
// size, tiles it to the device's buffer range, and returns the result.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/gpu/device.h"
#include "core/gpu/real.h"
#include "core/gpu/row_tiles.h"

namespace lsrl::gpu {

// out[i] = max(in[i], 0) for i < count; `out` may be `in` (in place).
void recordRelu(Device& dev, Batch& batch, const Buffer& in, Buffer& out, size_t count,
                Real real = Real::F32);
std::vector<float> runRelu(Device& dev, std::span<const float> in, const TileOptions& options = {});

// Y[r][i] = X[r][i] · X[r][i + h]: X holds rows × 2h values, Y rows × h.
void recordMulti(Device& dev, Batch& batch, const Buffer& X, Buffer& Y, size_t rows, size_t h,
                 Real real = Real::F32);
std::vector<float> runMulti(Device& dev, std::span<const float> X, size_t rows, size_t h,
                            const TileOptions& options = {});

// out[i] = x[i] + y[i] (add), x[i] · y[i] (mul) for i < count; `out` may be x or y.
void recordAdd(Device& dev, Batch& batch, const Buffer& x, const Buffer& y, Buffer& out,
               size_t count, Real real = Real::F32);
void recordMul(Device& dev, Batch& batch, const Buffer& x, const Buffer& y, Buffer& out,
               size_t count, Real real = Real::F32);
// x and y of the same length; out has that length.
std::vector<float> runAdd(Device& dev, std::span<const float> x, std::span<const float> y,
                          const TileOptions& options = {});
std::vector<float> runMul(Device& dev, std::span<const float> x, std::span<const float> y,
                          const TileOptions& options = {});

}  // namespace lsrl::gpu
