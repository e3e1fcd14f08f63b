#include "core/float_batch/conv_lru.h"

#include <cmath>
#include <string>

#include "core/float_batch/scan.h"
#include "core/util/error.h"

namespace lsrl::float_batch {

namespace conv_lru_checks {

void conv(std::string_view kernel, const SeriesShape& shape, int K) {
  scan_checks::shape(kernel, shape, 1);
  if (K < 1) throw Error(std::string(kernel) + ": expected K >= 1, got K=" + std::to_string(K));
}

void convArrays(std::string_view kernel, const SeriesShape& shape, int K, size_t tapsFloats,
                size_t biasFloats, size_t xFloats) {
  conv(kernel, shape, K);
  const size_t C = shape.channels;
  scan_checks::length(kernel, "taps (C x K)", C * size_t(K), tapsFloats);
  scan_checks::length(kernel, "bias", C, biasFloats);
  scan_checks::length(kernel, "x", size_t(shape.batch) * size_t(shape.steps) * C, xFloats);
}

void lruArrays(std::string_view kernel, const SeriesShape& shape, std::span<const float> base,
               size_t rFloats, size_t iFloats, size_t uFloats) {
  scan_checks::shape(kernel, shape, 1);
  scan_checks::length(kernel, "base", size_t(shape.channels), base.size());
  for (size_t c = 0; c < base.size(); ++c)
    if (!(base[c] >= 0.0f))
      throw Error(std::string(kernel) + ": expected base >= 0 (ReLU'd), got base[" +
                  std::to_string(c) + "]=" + std::to_string(base[c]));
  const size_t n = size_t(shape.batch) * size_t(shape.steps) * size_t(shape.channels);
  scan_checks::length(kernel, "r", n, rFloats);
  scan_checks::length(kernel, "i", n, iFloats);
  scan_checks::length(kernel, "u", n, uFloats);
}

}  // namespace conv_lru_checks

std::vector<float> causalConv1d(const SeriesShape& shape, std::span<const float> taps, int K,
                                std::span<const float> bias, std::span<const float> x) {
  const char* kernel = "causalConv1d";
  conv_lru_checks::convArrays(kernel, shape, K, taps.size(), bias.size(), x.size());
  const size_t B = shape.batch, T = shape.steps, C = shape.channels, k = size_t(K);
  std::vector<float> out(B * T * C);
  for (size_t bi = 0; bi < B; ++bi)
    for (size_t t = 0; t < T; ++t) {
      const size_t row = (bi * T + t) * C;
      for (size_t c = 0; c < C; ++c) {
        float sum = bias[c];
        for (size_t j = 0; j < k && j <= t; ++j) {
          const float w = taps[c * k + (k - 1 - j)];
          if (w != 0.0f) sum += w * x[row - j * C + c];
        }
        out[row + c] = sum;
      }
    }
  return out;
}

void rgLruInputs(const SeriesShape& shape, std::span<const float> base, float lruC,
                 std::span<const float> r, std::span<const float> i, std::span<const float> u,
                 std::span<float> a, std::span<float> bOut) {
  const char* kernel = "rgLruInputs";
  conv_lru_checks::lruArrays(kernel, shape, base, r.size(), i.size(), u.size());
  const size_t C = shape.channels, n = size_t(shape.batch) * size_t(shape.steps) * C;
  scan_checks::length(kernel, "a", n, a.size());
  scan_checks::length(kernel, "bOut", n, bOut.size());
  for (size_t k = 0; k < n; ++k) {
    const float e = lruC * r[k], b = base[k % C];
    // pow(0, e) and pow(b, 0) spelled out: the GPU's pow is undefined at base 0.
    const float alpha = e == 0.0f ? 1.0f : (b == 0.0f ? 0.0f : std::pow(b, e));
    a[k] = alpha;
    bOut[k] = std::sqrt(1.0f - alpha * alpha) * (i[k] * u[k]);
  }
}

}  // namespace lsrl::float_batch
