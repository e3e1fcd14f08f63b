// Small kernels shared by the target-architecture forward passes (gru, lstm, hawk): one
// template for exact and float64 values, over the compressed-row matrices of
// normal_form.h. The exact instantiations use no floating point.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/arch/normal_form.h"
#include "core/util/error.h"

namespace lsrl::arch_ops {

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

// M x + b
template <class S, class Mat>
std::vector<S> affine(const Mat& M, const std::vector<S>& x, const std::vector<S>& b) {
  std::vector<S> out(b);
  addProduct(M, x, out);
  return out;
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

}  // namespace lsrl::arch_ops
