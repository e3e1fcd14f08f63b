// The fp32 CPU twins of Hawk's per-channel kernels (core/gpu/conv_lru_kernels.h), as
// core/targets/hawk.cpp runHawk computes them: the depthwise causal convolution, and the
// RG-LRU's transition a and input b, which the diagonal scan (scan.h) then runs with the
// full series' strides.
//
// Layouts of layouts.h: series are [b][t][c]; taps are [c][K] row-major (tap K − 1
// multiplies the current token, as PyTorch's Conv1d with K − 1 left padding).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/float_batch/layouts.h"

namespace lsrl::float_batch {

// out[b][t][c] = bias[c] + Σ_{j=0}^{min(K−1, t)} taps[c][K−1−j] · x[b][t−j][c], skipping zero
// taps as the reference does (so 0 · inf never appears). taps are C·K, bias C floats.
std::vector<float> causalConv1d(const SeriesShape& shape, std::span<const float> taps, int K,
                                std::span<const float> bias, std::span<const float> x);

// The RG-LRU with ReLU gates, for every [b][t][c]: e = lruC · r,
//   a = 1 when e = 0, else 0 when base[c] = 0, else base[c]^e;  bOut = √(1 − a²) · (i · u).
// base (C floats, ≥ 0) is ReLU(Λ), applied by the caller; r, i, u, a, bOut are series.
void rgLruInputs(const SeriesShape& shape, std::span<const float> base, float lruC,
                 std::span<const float> r, std::span<const float> i, std::span<const float> u,
                 std::span<float> a, std::span<float> bOut);

// Input checks shared with the Vulkan kernels. Each throws lsrl::Error whose message
// names `kernel` and the expected vs the actual value.
namespace conv_lru_checks {
// The shape and K ≥ 1.
void conv(std::string_view kernel, const SeriesShape& shape, int K);
// The above, and host arrays: taps C·K, bias C and x B·T·C floats.
void convArrays(std::string_view kernel, const SeriesShape& shape, int K, size_t tapsFloats,
                size_t biasFloats, size_t xFloats);
// The shape, base C floats, every one ≥ 0 (GLSL's pow is undefined for a negative base),
// and r, i, u of B·T·C floats each.
void lruArrays(std::string_view kernel, const SeriesShape& shape, std::span<const float> base,
               size_t rFloats, size_t iFloats, size_t uFloats);
}  // namespace conv_lru_checks

}  // namespace lsrl::float_batch
