#include "core/float_batch/scan.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/util/error.h"

namespace lsrl::float_batch {

namespace scan_checks {

namespace {
std::string prefix(std::string_view kernel) { return std::string(kernel) + ": "; }
}  // namespace

void shape(std::string_view kernel, const SeriesShape& s, int floatsPerChannel) {
  if (s.batch < 1 || s.steps < 1 || s.channels < 1)
    throw Error(prefix(kernel) + "expected B, T, C >= 1, got B=" + std::to_string(s.batch) +
                " T=" + std::to_string(s.steps) + " C=" + std::to_string(s.channels));
  // The GPU kernels index with 32-bit unsigned integers.
  const double floats = double(s.batch) * s.steps * s.channels * floatsPerChannel;
  if (floats > double(INT32_MAX))
    throw Error(prefix(kernel) + "expected at most " + std::to_string(INT32_MAX) +
                " floats per series, got B*T*C" +
                (floatsPerChannel > 1 ? "*" + std::to_string(floatsPerChannel) : "") + "=" +
                std::to_string(static_cast<long long>(floats)));
}

void length(std::string_view kernel, std::string_view what, size_t expected, size_t got) {
  if (expected != got)
    throw Error(prefix(kernel) + "expected " + std::string(what) + " of " +
                std::to_string(expected) + " floats, got " + std::to_string(got));
}

void initialState(std::string_view kernel, const SeriesShape& s, int floatsPerChannel, size_t got) {
  const size_t expected = size_t(s.batch) * size_t(s.channels) * size_t(floatsPerChannel);
  if (got != 0 && got != expected)
    throw Error(prefix(kernel) + "expected h0 of 0 (zero state) or " + std::to_string(expected) +
                " floats, got " + std::to_string(got));
}

size_t transitionSlots(std::string_view kernel, const SeriesShape& s, TransitionStrides st) {
  if (st.batchStride < 0 || st.stepStride < 0)
    throw Error(prefix(kernel) + "expected transition strides >= 0, got batch " +
                std::to_string(st.batchStride) + " step " + std::to_string(st.stepStride));
  const long long last =
      (s.batch - 1LL) * st.batchStride + (s.steps - 1LL) * st.stepStride + s.channels;
  if (last > INT32_MAX)
    throw Error(prefix(kernel) + "expected a transition of at most " + std::to_string(INT32_MAX) +
                " slots, got " + std::to_string(last));
  return static_cast<size_t>(last);
}

template <class Scalar>
void squareCsr(std::string_view kernel, const BasicCsrMatrix<Scalar>& A, int channels) {
  if (A.rows != channels || A.cols != channels)
    throw Error(prefix(kernel) + "expected a " + std::to_string(channels) + "x" +
                std::to_string(channels) + " matrix, got " + std::to_string(A.rows) + "x" +
                std::to_string(A.cols));
  if (A.rowPtr.size() != size_t(A.rows) + 1 || A.rowPtr.front() != 0 ||
      A.rowPtr.back() != A.col.size() || A.col.size() != A.val.size())
    throw Error(prefix(kernel) + "expected rowPtr of " + std::to_string(A.rows + 1) +
                " entries from 0 to nnz = col = val count, got rowPtr " +
                std::to_string(A.rowPtr.size()) + " entries, col " + std::to_string(A.col.size()) +
                ", val " + std::to_string(A.val.size()));
  for (size_t r = 0; r + 1 < A.rowPtr.size(); ++r)
    if (A.rowPtr[r] > A.rowPtr[r + 1])
      throw Error(prefix(kernel) + "expected non-decreasing rowPtr, got rowPtr[" +
                  std::to_string(r) + "]=" + std::to_string(A.rowPtr[r]) + " > rowPtr[" +
                  std::to_string(r + 1) + "]=" + std::to_string(A.rowPtr[r + 1]));
  for (size_t i = 0; i < A.col.size(); ++i)
    if (A.col[i] >= uint32_t(channels))
      throw Error(prefix(kernel) + "expected column indices < " + std::to_string(channels) +
                  ", got col[" + std::to_string(i) + "]=" + std::to_string(A.col[i]));
}

template void squareCsr(std::string_view, const CsrMatrix&, int);
template void squareCsr(std::string_view, const CsrMatrix64&, int);

}  // namespace scan_checks

namespace {

// Walks every (b, t) in order, letting step(bi, t, prev, in, out) write the row h_t at `out`
// from the row before (prev: h_{t−1}; nullptr for a zero start) and the input row `in`.
// Rows are rowFloats wide in the input, h0 and h alike.
template <class Step>
std::vector<float> walkSeries(const SeriesShape& shape, size_t rowFloats, std::span<const float> in,
                              std::span<const float> h0, Step step) {
  const size_t B = shape.batch, T = shape.steps;
  std::vector<float> h(B * T * rowFloats);
  for (size_t bi = 0; bi < B; ++bi) {
    const float* prev = h0.empty() ? nullptr : h0.data() + bi * rowFloats;
    for (size_t t = 0; t < T; ++t) {
      const size_t row = (bi * T + t) * rowFloats;
      step(bi, t, prev, in.data() + row, h.data() + row);
      prev = h.data() + row;
    }
  }
  return h;
}

}  // namespace

std::vector<float> diagScan(const SeriesShape& shape, std::span<const float> a,
                            TransitionStrides aStrides, std::span<const float> b,
                            std::span<const float> h0) {
  const char* kernel = "diagScan";
  scan_checks::shape(kernel, shape, 1);
  const size_t B = shape.batch, T = shape.steps, C = shape.channels;
  scan_checks::length(kernel, "a", scan_checks::transitionSlots(kernel, shape, aStrides), a.size());
  scan_checks::length(kernel, "b", B * T * C, b.size());
  scan_checks::initialState(kernel, shape, 1, h0.size());
  return walkSeries(
      shape, C, b, h0, [&](size_t bi, size_t t, const float* prev, const float* bt, float* ht) {
        const float* at = a.data() + bi * aStrides.batchStride + t * aStrides.stepStride;
        for (size_t c = 0; c < C; ++c) ht[c] = (prev ? at[c] * prev[c] : 0.0f) + bt[c];
      });
}

std::vector<float> complexDiagScan(const SeriesShape& shape, std::span<const float> a,
                                   TransitionStrides aStrides, std::span<const float> b,
                                   std::span<const float> h0) {
  const char* kernel = "complexDiagScan";
  scan_checks::shape(kernel, shape, 2);
  const size_t B = shape.batch, T = shape.steps, C = shape.channels;
  scan_checks::length(kernel, "a", 2 * scan_checks::transitionSlots(kernel, shape, aStrides),
                      a.size());
  scan_checks::length(kernel, "b", 2 * B * T * C, b.size());
  scan_checks::initialState(kernel, shape, 2, h0.size());
  return walkSeries(
      shape, 2 * C, b, h0, [&](size_t bi, size_t t, const float* prev, const float* bt, float* ht) {
        const float* at = a.data() + 2 * (bi * aStrides.batchStride + t * aStrides.stepStride);
        for (size_t c = 0; c < C; ++c) {
          const float ar = at[2 * c], ai = at[2 * c + 1];
          const float hr = prev ? prev[2 * c] : 0.0f, hi = prev ? prev[2 * c + 1] : 0.0f;
          ht[2 * c] = ar * hr - ai * hi + bt[2 * c];
          ht[2 * c + 1] = ar * hi + ai * hr + bt[2 * c + 1];
        }
      });
}

std::vector<float> blockScan2(const SeriesShape& shape, std::span<const float> blocks,
                              std::span<const float> b, std::span<const float> h0) {
  const char* kernel = "blockScan2";
  scan_checks::shape(kernel, shape, 1);
  const size_t B = shape.batch, T = shape.steps, C = shape.channels;
  if (C % 2 != 0)
    throw Error(std::string(kernel) +
                ": expected an even channel count, got C=" + std::to_string(C));
  scan_checks::length(kernel, "blocks (C/2 x 2 x 2)", 2 * C, blocks.size());
  scan_checks::length(kernel, "b", B * T * C, b.size());
  scan_checks::initialState(kernel, shape, 1, h0.size());
  return walkSeries(
      shape, C, b, h0, [&](size_t, size_t, const float* prev, const float* bt, float* ht) {
        for (size_t k = 0; k < C / 2; ++k) {
          const float* A = blocks.data() + 4 * k;
          const float x = prev ? prev[2 * k] : 0.0f, y = prev ? prev[2 * k + 1] : 0.0f;
          ht[2 * k] = A[0] * x + A[1] * y + bt[2 * k];
          ht[2 * k + 1] = A[2] * x + A[3] * y + bt[2 * k + 1];
        }
      });
}

std::vector<float> linearRecurrence(const SeriesShape& shape, const CsrMatrix& A,
                                    std::span<const float> u, std::span<const float> h0,
                                    bool reluState) {
  const char* kernel = "linearRecurrence";
  scan_checks::shape(kernel, shape, 1);
  const size_t B = shape.batch, T = shape.steps, C = shape.channels;
  scan_checks::squareCsr(kernel, A, shape.channels);
  scan_checks::length(kernel, "u", B * T * C, u.size());
  scan_checks::initialState(kernel, shape, 1, h0.size());
  return walkSeries(shape, C, u, h0,
                    [&](size_t, size_t, const float* prev, const float* ut, float* ht) {
                      for (size_t r = 0; r < C; ++r) {
                        float sum = 0.0f;
                        if (prev)
                          for (uint32_t i = A.rowPtr[r]; i < A.rowPtr[r + 1]; ++i)
                            sum += A.val[i] * prev[A.col[i]];
                        const float next = sum + ut[r];
                        ht[r] = reluState ? std::max(next, 0.0f) : next;
                      }
                    });
}

}  // namespace lsrl::float_batch
