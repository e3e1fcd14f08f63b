// The fp32 CPU twins of the scan / recurrence kernels (core/gpu/scan_kernels.h): plain
// sequential loops over b, t, c (channel innermost, so every step streams rows) that are
// the parity references of the Vulkan kernels and the CPU runner's LinState kernels.
//
// Series use the layouts of layouts.h: x[b][t][c], complex ones interleaved x[b][t][c][2].
// h0 is the state before t = 0, [b][c] (complex: [b][c][2]); empty means all zero.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/float_batch/layouts.h"

namespace lsrl::float_batch {

// h_t = a_t ⊙ h_{t−1} + b_t, a_t[c] = a[b·batchStride + t·stepStride + c].
std::vector<float> diagScan(const SeriesShape& shape, std::span<const float> a,
                            TransitionStrides aStrides, std::span<const float> b,
                            std::span<const float> h0);

// The same with complex a, b, h (interleaved); strides count complex slots.
std::vector<float> complexDiagScan(const SeriesShape& shape, std::span<const float> a,
                                   TransitionStrides aStrides, std::span<const float> b,
                                   std::span<const float> h0);

// h_t = blockdiag(A_0 … A_{C/2−1}) h_{t−1} + b_t: constant 2×2 blocks stored [k][2][2]
// row-major (so channels 2k, 2k+1 form block k). C must be even.
std::vector<float> blockScan2(const SeriesShape& shape, std::span<const float> blocks,
                              std::span<const float> b, std::span<const float> h0);

// h_t = A h_{t−1} + u_t with A a constant C × C sparse matrix (the general LinState);
// with reluState, h_t = ReLU(A h_{t−1} + u_t) (a ReLU-state LinState, the ReLU-RNN target).
std::vector<float> linearRecurrence(const SeriesShape& shape, const CsrMatrix& A,
                                    std::span<const float> u, std::span<const float> h0,
                                    bool reluState = false);

// Input checks shared with the Vulkan kernels. Each throws lsrl::Error whose message
// names `kernel` and the expected vs the actual value.
namespace scan_checks {
// B, T, C ≥ 1 and B·T·C·floatsPerChannel addressable with 32-bit indices.
void shape(std::string_view kernel, const SeriesShape& shape, int floatsPerChannel);
// `got` == `expected` elements of `what`.
void length(std::string_view kernel, std::string_view what, size_t expected, size_t got);
// h0 is empty or B·C·floatsPerChannel long.
void initialState(std::string_view kernel, const SeriesShape& shape, int floatsPerChannel,
                  size_t got);
// The slots a transition with these strides addresses (strides must be ≥ 0).
size_t transitionSlots(std::string_view kernel, const SeriesShape& shape, TransitionStrides s);
// A is C × C with consistent row pointers and column indices < C (float or double values).
template <class Scalar>
void squareCsr(std::string_view kernel, const BasicCsrMatrix<Scalar>& A, int channels);
}  // namespace scan_checks

}  // namespace lsrl::float_batch
