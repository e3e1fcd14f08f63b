#include "core/seed_models/dense_layers.h"

#include <cmath>
#include <numbers>

namespace lsrl::seed_models {

Vector linear(const Tensor& W, const Tensor* b, const Vector& x) {
  const auto out = static_cast<size_t>(W.shape[0]), in = static_cast<size_t>(W.shape[1]);
  Vector y(out);
  for (size_t i = 0; i < out; ++i) {
    double s = b ? b->data[i] : 0.0;
    for (size_t j = 0; j < in; ++j) s += W.data[i * in + j] * x[j];
    y[i] = s;
  }
  return y;
}

Vector layerNorm(const Tensor& gain, const Tensor& bias, const Vector& x) {
  double mean = 0, var = 0;
  for (const double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (const double v : x) var += (v - mean) * (v - mean);
  var /= static_cast<double>(x.size());
  const double inv = 1 / std::sqrt(var + kLayerNormEps);
  Vector y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean) * inv * gain.data[i] + bias.data[i];
  return y;
}

double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2)); }

}  // namespace lsrl::seed_models
