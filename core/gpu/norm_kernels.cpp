#include "core/gpu/norm_kernels.h"

#include <string>

#include "core/gpu/kernel_support.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {
struct LayerNormPush {
  uint32_t rows, width;
  float eps;
};
}  // namespace

void recordLayerNorm(Device& dev, Batch& batch, const Buffer& gain, const Buffer& bias,
                     const Buffer& X, const Buffer& Y, size_t rows, size_t width, float eps) {
  const char* kernel = "layerNorm";
  if (width == 0) throw Error(std::string(kernel) + ": expected a width of at least 1, got 0");
  checkBuffer(kernel, "gain", &gain, width * sizeof(float));
  checkBuffer(kernel, "bias", &bias, width * sizeof(float));
  checkBuffer(kernel, "X", &X, rows * width * sizeof(float));
  checkBuffer(kernel, "Y", &Y, rows * width * sizeof(float));
  if (rows == 0) return;
  const LayerNormPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(width), eps};
  const Kernel& k = shaderKernel(dev, "layer_norm", 4, sizeof push);
  batch.dispatch(k, {&gain, &bias, &X, &Y}, &push, sizeof push, cappedGroups(rows, 1));
}

}  // namespace lsrl::gpu
