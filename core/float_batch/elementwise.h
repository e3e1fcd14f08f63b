// The fp32 CPU twins of the element-wise kernels (core/gpu/elementwise_kernels.h):
// ReLU, LSRL's Multi gate (a row of 2h values becomes the h products of its halves), and
// the binary sum and product of two arrays (residual streams, gated branches).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace lsrl::float_batch {

// out[i] = max(in[i], 0) for i < in.size(); `out` may be `in` (in place).
void relu(std::span<const float> in, std::span<float> out);
void reluInPlace(std::span<float> inOut);
std::vector<float> relu(std::span<const float> in);

// Y[r][i] = X[r][i] · X[r][i + h] for r < rows, i < h: X is rows × 2h, Y rows × h.
void multi(std::span<const float> X, size_t rows, size_t h, std::span<float> Y);
std::vector<float> multi(std::span<const float> X, size_t rows, size_t h);

// out[i] = x[i] + y[i] (add), x[i] · y[i] (mul) for i < out.size(); `out` may be x or y.
void add(std::span<const float> x, std::span<const float> y, std::span<float> out);
void mul(std::span<const float> x, std::span<const float> y, std::span<float> out);

// Input checks shared with the Vulkan kernels; each throws lsrl::Error naming `kernel` and
// the expected vs the actual value.
namespace elementwise_checks {
// count ≥ 1 and both arrays hold at least `count` floats.
void relu(std::string_view kernel, size_t count, size_t inFloats, size_t outFloats);
// rows, h ≥ 1, X holds rows·2h floats and Y rows·h.
void multi(std::string_view kernel, size_t rows, size_t h, size_t xFloats, size_t yFloats);
// count ≥ 1 and x, y and out each hold at least `count` floats.
void binary(std::string_view kernel, size_t count, size_t xFloats, size_t yFloats,
            size_t outFloats);
}  // namespace elementwise_checks

}  // namespace lsrl::float_batch
