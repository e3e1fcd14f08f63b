// The fp32 CPU twins of the gated-cell kernels (core/gpu/gated_cell_kernels.h): the
// sequential part of one GRU or LSTM layer with ReLU for every sigmoid and tanh, exactly
// as core/targets/gru.cpp runGru and core/targets/lstm.cpp runLstm compute it. The input
// projection gi = W_ih x + b_ih of every token is a matvec the caller runs first.
//
// Layouts of layouts.h: gi is [b][t][gates·H] (gate blocks r, z, n or i, f, g, o), h is
// [b][t][H], the shape's channels are H; h0 and c0 are [b][H], empty for zeros.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/float_batch/layouts.h"

namespace lsrl::float_batch {

// How the GRU mixes the candidate n into the state (core/targets/gru.h GruUpdate).
enum class GruRule { Pytorch, Paper };

// gh = Whh·h_{t−1} + bhh (3H); for every unit j:
//   r = relu(gi[j] + gh[j]);  z = relu(gi[H+j] + gh[H+j]);  n = relu(gi[2H+j] + r·gh[2H+j])
//   Pytorch: h_t[j] = (1 − z)·n + z·h_{t−1}[j];  Paper: h_t[j] = (1 − z)·h_{t−1}[j] + z·n
// Whh is 3H × H, bhh 3H long. Returns h.
std::vector<float> gruRecurrence(const SeriesShape& shape, const CsrMatrix& Whh,
                                 std::span<const float> bhh, std::span<const float> gi,
                                 std::span<const float> h0, GruRule rule);

// g = relu(gi + Whh·h_{t−1} + bhh) (4H, blocks i, f, g, o); for every unit j:
//   c_t[j] = f[j]·c_{t−1}[j] + i[j]·g[j];  h_t[j] = o[j]·relu(c_t[j])
// Whh is 4H × H, bhh 4H long. Returns h.
std::vector<float> lstmRecurrence(const SeriesShape& shape, const CsrMatrix& Whh,
                                  std::span<const float> bhh, std::span<const float> gi,
                                  std::span<const float> h0, std::span<const float> c0);

// Input checks shared with the Vulkan kernels. Each throws lsrl::Error whose message
// names `kernel` and the expected vs the actual value.
namespace gated_cell_checks {
// B, T, H ≥ 1 and B·T·gates·H floats addressable with 32-bit indices.
void shape(std::string_view kernel, const SeriesShape& shape, int gates);
// Whh is gates·H × H with consistent row pointers and column indices < H.
void recurrentMatrix(std::string_view kernel, const CsrMatrix& Whh, int gates, int hidden);
// `what` (h0 or c0) is empty or B·H floats.
void initialState(std::string_view kernel, std::string_view what, const SeriesShape& shape,
                  size_t got);
// Everything above for host arguments: bhh gates·H floats, gi B·T·gates·H.
void cell(std::string_view kernel, const SeriesShape& shape, int gates, const CsrMatrix& Whh,
          size_t bhhFloats, size_t giFloats, size_t h0Floats, size_t c0Floats);
}  // namespace gated_cell_checks

}  // namespace lsrl::float_batch
