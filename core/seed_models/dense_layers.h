// Small dense layers the seed models share (float64, one vector at a time).
#pragma once

#include "core/io/tensor.h"
#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

inline constexpr double kLayerNormEps = 1e-5;  // PyTorch's nn.LayerNorm default

// y = W x + b for W [out][in] row-major (b may be null: no bias).
Vector linear(const Tensor& W, const Tensor* b, const Vector& x);
// (x − mean) / sqrt(var + eps) · gain + bias, over the whole vector.
Vector layerNorm(const Tensor& gain, const Tensor& bias, const Vector& x);
// The exact GeLU, x · Φ(x).
double gelu(double x);

}  // namespace lsrl::seed_models
