// Small kernels shared by the target-architecture forward passes (gru, lstm, hawk): one
// template for exact and float64 values, over the compressed-row matrices of
// normal_form.h. The exact instantiations use no floating point.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "core/targets/normal_form.h"
#include "core/util/cancelling_sum.h"
#include "core/util/error.h"

namespace lsrl::sparse_ops {

inline double relu(double x) { return x > 0 ? x : 0.0; }
inline Exact relu(const Exact& x) { return x.sign() > 0 ? x : Exact(); }

inline bool isZeroValue(double x) { return x == 0.0; }
inline bool isZeroValue(const Exact& x) { return x.isZero(); }

template <class S>
void reluInPlace(std::vector<S>& v) {
  for (S& x : v) x = relu(x);
}

// out += M x
template <class S, class Mat>
void addProduct(const Mat& M, const std::vector<S>& x, std::vector<S>& out) {
  const auto& rs = M.rowStart();
  const auto& ci = M.colIndex();
  const auto& vs = M.values();
  for (int r = 0; r < M.rows(); ++r) {
    for (int64_t k = rs[static_cast<size_t>(r)]; k < rs[static_cast<size_t>(r) + 1]; ++k) {
      out[static_cast<size_t>(r)] +=
          vs[static_cast<size_t>(k)] * x[static_cast<size_t>(ci[static_cast<size_t>(k)])];
    }
  }
}

// A x + B y + b: exactly in exact arithmetic; in float64 each row's terms (bias and
// products) summed by decreasing magnitude, as the path executor sums a row
// (core/util/cancelling_sum.h), so that a target computes its rows as the path does.
// B may be null (then y is not read).
template <class S, class Mat>
std::vector<S> affine2(const Mat& A, const std::vector<S>& x, const Mat* B, const std::vector<S>* y,
                       const std::vector<S>& b) {
  if constexpr (!std::is_same_v<S, double>) {
    std::vector<S> out(b);
    addProduct(A, x, out);
    if (B != nullptr) addProduct(*B, *y, out);
    return out;
  } else {
    std::vector<double> out(b.size());
    std::vector<double> terms;
    for (int r = 0; r < A.rows(); ++r) {
      const auto row = static_cast<size_t>(r);
      terms.assign(1, b[row]);
      const auto add = [&](const Mat& M, const std::vector<double>& v) {
        for (int64_t k = M.rowStart()[row]; k < M.rowStart()[row + 1]; ++k) {
          const auto at = static_cast<size_t>(k);
          terms.push_back(M.values()[at] * v[static_cast<size_t>(M.colIndex()[at])]);
        }
      };
      add(A, x);
      if (B != nullptr) add(*B, *y);
      out[row] = sumByDecreasingMagnitude(terms.data(), static_cast<int>(terms.size()));
    }
    return out;
  }
}

// M x + b (see affine2)
template <class S, class Mat>
std::vector<S> affine(const Mat& M, const std::vector<S>& x, const std::vector<S>& b) {
  return affine2<S, Mat>(M, x, nullptr, nullptr, b);
}

// Throws unless token t has `inputDim` features; `kind` names the model.
template <class S>
void requireTokenWidth(const std::string& kind, size_t t, const std::vector<S>& token,
                       int inputDim) {
  if (static_cast<int>(token.size()) != inputDim) {
    throw Error(kind + ": token " + std::to_string(t) + " has " + std::to_string(token.size()) +
                " features, expected " + std::to_string(inputDim));
  }
}

}  // namespace lsrl::sparse_ops
