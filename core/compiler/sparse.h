// Scalars and sparse matrices of the compiler's rewriting IR, templated on the backend:
// double (float64) or eantic::renf_elem_class, every element of one field (exact; no
// floating point anywhere on that path, zero tests exact).
#pragma once

#include <algorithm>
#include <cstdint>
#include <e-antic/renf_elem_class.hpp>
#include <utility>
#include <vector>

#include "core/graph/matrix.h"
#include "core/numbers/exact.h"
#include "core/numbers/exact_field.h"

namespace lsrl::compiler {

using ExactScalar = eantic::renf_elem_class;

// The conversions and constants of one backend.
template <class S>
struct Scalars;

template <>
struct Scalars<double> {
  double zero() const { return 0.0; }
  double one() const { return 1.0; }
  double from(const Exact& e) const { return e.toDouble(); }
  Exact to(double v) const { return Exact(v); }
  static bool isZero(double v) { return v == 0.0; }
  static bool isOne(double v) { return v == 1.0; }
  int sign(double v) const { return (v > 0) - (v < 0); }
};

template <>
struct Scalars<ExactScalar> {
  const CosField* field = &CosField::rationals();
  ExactScalar zero() const { return field->zero(); }
  ExactScalar one() const { return field->fromRational(mpq_class(1)); }
  ExactScalar from(const Exact& e) const { return e.liftedTo(*field).element(); }
  Exact to(const ExactScalar& v) const { return Exact(*field, v); }
  static bool isZero(const ExactScalar& v) { return v.is_zero(); }
  static bool isOne(const ExactScalar& v) { return v.is_one(); }
  int sign(const ExactScalar& v) const { return signOf(v, *field); }
};

// Compressed sparse rows; explicit zeros are never stored.
template <class S>
struct SpMat {
  int rows = 0;
  int cols = 0;
  std::vector<int> rowStart{0};
  std::vector<int> col;
  std::vector<S> val;

  size_t nonZeros() const { return val.size(); }

  static SpMat zeros(int r, int c) {
    SpMat m;
    m.rows = r;
    m.cols = c;
    m.rowStart.assign(static_cast<size_t>(r) + 1, 0);
    return m;
  }
  // Row i has `value` in column offset + i (for i < n); rows x cols.
  static SpMat diagonal(int r, int c, int offset, const S& value) {
    SpMat m;
    m.rows = r;
    m.cols = c;
    m.rowStart.reserve(static_cast<size_t>(r) + 1);
    for (int i = 0; i < r; ++i) {
      const int j = offset + i;
      if (j >= 0 && j < c && !Scalars<S>::isZero(value)) {
        m.col.push_back(j);
        m.val.push_back(value);
      }
      m.rowStart.push_back(static_cast<int>(m.col.size()));
    }
    return m;
  }
  static SpMat identity(int n, const S& one) { return diagonal(n, n, 0, one); }
  // Row i picks column start + i.
  static SpMat selection(int start, int end, int c, const S& one) {
    return diagonal(end - start, c, start, one);
  }

  SpMat scaled(const S& s) const {
    SpMat m = *this;
    if (Scalars<S>::isZero(s)) return zeros(rows, cols);
    for (S& v : m.val) v = v * s;
    return m;
  }

  // Rows [r0, r1).
  SpMat rowRange(int r0, int r1) const {
    SpMat m;
    m.rows = r1 - r0;
    m.cols = cols;
    const int a = rowStart[static_cast<size_t>(r0)];
    const int b = rowStart[static_cast<size_t>(r1)];
    m.col.assign(col.begin() + a, col.begin() + b);
    m.val.assign(val.begin() + a, val.begin() + b);
    m.rowStart.clear();
    for (int r = r0; r <= r1; ++r) m.rowStart.push_back(rowStart[static_cast<size_t>(r)] - a);
    return m;
  }
};

// The start column when row i of m is e_{start+i} for every row (a 0/1 selection of
// consecutive columns, identities included); -1 otherwise.
template <class S>
int selectionStart(const SpMat<S>& m) {
  if (static_cast<int>(m.val.size()) != m.rows || m.rows == 0) return -1;
  const int start = m.col[0];
  for (int r = 0; r < m.rows; ++r) {
    if (m.rowStart[r + 1] != r + 1 || m.col[r] != start + r || !Scalars<S>::isOne(m.val[r]))
      return -1;
  }
  return start;
}

// A·B, both sparse. A selection on either side is a copy (rows of B, or A's columns
// moved), not a product.
template <class S>
SpMat<S> multiply(const SpMat<S>& a, const SpMat<S>& b) {
  if (const int start = selectionStart(b); start >= 0) {
    SpMat<S> m = a;
    m.cols = b.cols;
    if (start != 0) {
      for (int& c : m.col) c += start;
    }
    return m;
  }
  if (const int start = selectionStart(a); start >= 0) return b.rowRange(start, start + a.rows);
  SpMat<S> m;
  m.rows = a.rows;
  m.cols = b.cols;
  m.rowStart.reserve(static_cast<size_t>(a.rows) + 1);
  std::vector<std::pair<int, S>> acc;
  for (int i = 0; i < a.rows; ++i) {
    acc.clear();
    for (int p = a.rowStart[i]; p < a.rowStart[i + 1]; ++p) {
      const int k = a.col[p];
      for (int q = b.rowStart[k]; q < b.rowStart[k + 1]; ++q)
        acc.emplace_back(b.col[q], a.val[p] * b.val[q]);
    }
    if (acc.size() > 1) {
      std::stable_sort(acc.begin(), acc.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    for (size_t t = 0; t < acc.size();) {
      const int j = acc[t].first;
      S sum = std::move(acc[t].second);
      size_t u = t + 1;
      for (; u < acc.size() && acc[u].first == j; ++u) sum = sum + acc[u].second;
      if (!Scalars<S>::isZero(sum)) {
        m.col.push_back(j);
        m.val.push_back(std::move(sum));
      }
      t = u;
    }
    m.rowStart.push_back(static_cast<int>(m.col.size()));
  }
  return m;
}

// A·v + w (w may be empty: treated as zeros).
template <class S>
std::vector<S> multiplyAdd(const SpMat<S>& a, const std::vector<S>& v, const std::vector<S>& w,
                           const S& zero) {
  std::vector<S> out;
  out.reserve(static_cast<size_t>(a.rows));
  for (int i = 0; i < a.rows; ++i) {
    S sum = w.empty() ? zero : w[static_cast<size_t>(i)];
    for (int p = a.rowStart[i]; p < a.rowStart[i + 1]; ++p) {
      const S& x = v[static_cast<size_t>(a.col[p])];
      if (!Scalars<S>::isZero(x)) sum = sum + a.val[p] * x;
    }
    out.push_back(std::move(sum));
  }
  return out;
}

template <class S>
void reserveFor(SpMat<S>& m, const std::vector<const SpMat<S>*>& blocks) {
  size_t nnz = m.val.size();
  size_t rows = m.rowStart.size();
  for (const SpMat<S>* b : blocks) {
    nnz += b->val.size();
    rows += static_cast<size_t>(b->rows);
  }
  // Geometric growth: a matrix moved along from step to step is not copied every time.
  const auto grow = [](auto& v, size_t n) {
    if (n > v.capacity()) v.reserve(std::max(n, 2 * v.capacity()));
  };
  grow(m.col, nnz);
  grow(m.val, nnz);
  grow(m.rowStart, rows);
}

// Blocks one above the other (same column count).
template <class S>
SpMat<S> vstack(const std::vector<const SpMat<S>*>& blocks) {
  SpMat<S> m;
  m.cols = blocks.empty() ? 0 : blocks.front()->cols;
  reserveFor(m, blocks);
  for (const SpMat<S>* b : blocks) {
    const int base = static_cast<int>(m.col.size());
    m.col.insert(m.col.end(), b->col.begin(), b->col.end());
    m.val.insert(m.val.end(), b->val.begin(), b->val.end());
    for (int r = 1; r <= b->rows; ++r) m.rowStart.push_back(base + b->rowStart[r]);
    m.rows += b->rows;
  }
  return m;
}

// Block-diagonal: block k occupies its rows and the columns after the previous blocks'.
template <class S>
SpMat<S> blockDiagonal(const std::vector<const SpMat<S>*>& blocks) {
  SpMat<S> m;
  reserveFor(m, blocks);
  int colOffset = 0;
  for (const SpMat<S>* b : blocks) {
    for (int r = 0; r < b->rows; ++r) {
      for (int p = b->rowStart[r]; p < b->rowStart[r + 1]; ++p) {
        m.col.push_back(b->col[p] + colOffset);
        m.val.push_back(b->val[p]);
      }
      m.rowStart.push_back(static_cast<int>(m.col.size()));
    }
    m.rows += b->rows;
    colOffset += b->cols;
  }
  m.cols = colOffset;
  return m;
}

// vstack / blockDiagonal with the first block given by value (moved in when its owner
// is about to be discarded): the others are appended, so a large first block is not copied.
template <class S>
SpMat<S> vstackOnto(SpMat<S> first, const std::vector<const SpMat<S>*>& rest) {
  SpMat<S> m = std::move(first);
  reserveFor(m, rest);
  for (const SpMat<S>* b : rest) {
    const int base = static_cast<int>(m.col.size());
    m.col.insert(m.col.end(), b->col.begin(), b->col.end());
    m.val.insert(m.val.end(), b->val.begin(), b->val.end());
    for (int r = 1; r <= b->rows; ++r) m.rowStart.push_back(base + b->rowStart[r]);
    m.rows += b->rows;
  }
  return m;
}

template <class S>
SpMat<S> blockDiagonalOnto(SpMat<S> first, const std::vector<const SpMat<S>*>& rest) {
  SpMat<S> m = std::move(first);
  reserveFor(m, rest);
  for (const SpMat<S>* b : rest) {
    const int colOffset = m.cols;
    for (int r = 0; r < b->rows; ++r) {
      for (int p = b->rowStart[r]; p < b->rowStart[r + 1]; ++p) {
        m.col.push_back(b->col[p] + colOffset);
        m.val.push_back(b->val[p]);
      }
      m.rowStart.push_back(static_cast<int>(m.col.size()));
    }
    m.rows += b->rows;
    m.cols += b->cols;
  }
  return m;
}

template <class S>
SpMat<S> fromExact(const ExactMatrix& e, const Scalars<S>& sc) {
  SpMat<S> m;
  m.rows = e.rows();
  m.cols = e.cols();
  m.rowStart.clear();
  for (int64_t s : e.rowStart()) m.rowStart.push_back(static_cast<int>(s));
  m.col = e.colIndex();
  m.val.reserve(e.values().size());
  for (const Exact& x : e.values()) m.val.push_back(sc.from(x));
  // Float conversion could in principle underflow to 0: drop such entries.
  if constexpr (std::is_same_v<S, double>) {
    SpMat<S> clean = SpMat<S>::zeros(0, m.cols);
    clean.rows = m.rows;
    clean.rowStart.assign(1, 0);
    for (int r = 0; r < m.rows; ++r) {
      for (int p = m.rowStart[r]; p < m.rowStart[r + 1]; ++p) {
        if (m.val[p] != 0.0) {
          clean.col.push_back(m.col[p]);
          clean.val.push_back(m.val[p]);
        }
      }
      clean.rowStart.push_back(static_cast<int>(clean.col.size()));
    }
    return clean;
  }
  return m;
}

template <class S>
ExactMatrix toExact(const SpMat<S>& m, const Scalars<S>& sc) {
  std::vector<ExactMatrix::Entry> entries;
  entries.reserve(m.val.size());
  for (int r = 0; r < m.rows; ++r) {
    for (int p = m.rowStart[r]; p < m.rowStart[r + 1]; ++p)
      entries.push_back({r, m.col[p], sc.to(m.val[p])});
  }
  return ExactMatrix::fromEntries(m.rows, m.cols, std::move(entries));
}

template <class S>
std::vector<S> fromExact(const ExactVector& v, int n, const Scalars<S>& sc) {
  std::vector<S> out;
  out.reserve(static_cast<size_t>(n));
  if (v.empty()) {
    for (int i = 0; i < n; ++i) out.push_back(sc.zero());
    return out;
  }
  for (const Exact& x : v) out.push_back(sc.from(x));
  return out;
}

template <class S>
ExactVector toExact(const std::vector<S>& v, const Scalars<S>& sc) {
  ExactVector out;
  out.reserve(v.size());
  for (const S& x : v) out.push_back(sc.to(x));
  return out;
}

}  // namespace lsrl::compiler
