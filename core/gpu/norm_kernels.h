// LayerNorm on the device (shaders/layer_norm.comp), the twin of
// core/seed_models/dense_layers.h's layerNorm: every row of X [rows][width] normalised and
// scaled, Y = (X − mean) / sqrt(var + eps) ⊙ gain + bias, in fp32. The seed models' pre-norm
// where their layers run on the device (min_rnn_resident.h).
#pragma once

#include <cstddef>

#include "core/gpu/device.h"

namespace lsrl::gpu {

// gain and bias hold `width` floats, X and Y rows × width. Throws lsrl::Error naming the
// kernel for a buffer too small or a width of 0.
void recordLayerNorm(Device& dev, Batch& batch, const Buffer& gain, const Buffer& bias,
                     const Buffer& X, const Buffer& Y, size_t rows, size_t width, float eps);

}  // namespace lsrl::gpu
