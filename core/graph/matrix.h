// Sparse exact matrices (compressed rows) and dense exact vectors: the values that
// LSRL nodes carry. Compiled LSRL matrices are mostly zeros, so only non-zeros are
// stored; an explicit zero is never kept.
#pragma once

#include <cstdint>
#include <vector>

#include "core/numbers/exact.h"

namespace lsrl {

using ExactVector = std::vector<Exact>;

ExactVector zerosVector(int n);
ExactVector filledVector(int n, const Exact& value);

class ExactMatrix {
 public:
  struct Entry {
    int row;
    int col;
    Exact value;
  };

  ExactMatrix() = default;
  ExactMatrix(int rows, int cols);  // all zeros

  static ExactMatrix identity(int n, const Exact& scale = Exact(1));
  static ExactMatrix filled(int rows, int cols, const Exact& value);
  // rows x cols selection: row i picks column start + i.
  static ExactMatrix selection(int start, int end, int cols);
  // Entries in any order; duplicates are summed, zeros dropped.
  static ExactMatrix fromEntries(int rows, int cols, std::vector<Entry> entries);
  static ExactMatrix fromDense(const std::vector<ExactVector>& rows, int cols);
  static ExactMatrix hstack(const std::vector<ExactMatrix>& blocks);
  static ExactMatrix vstack(const std::vector<ExactMatrix>& blocks);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  size_t nonZeros() const { return values_.size(); }
  Exact at(int row, int col) const;
  std::vector<Entry> entries() const;  // row-major order

  // Compressed-row access for executors.
  const std::vector<int64_t>& rowStart() const { return rowStart_; }  // rows + 1
  const std::vector<int>& colIndex() const { return colIndex_; }
  const std::vector<Exact>& values() const { return values_; }

  ExactMatrix operator*(const ExactMatrix& o) const;
  ExactVector operator*(const ExactVector& v) const;
  ExactMatrix scaled(const Exact& s) const;
  bool isIdentity() const;
  // lcm of the conductors of all entries (4 when everything is rational).
  int conductor() const;

  friend bool operator==(const ExactMatrix& a, const ExactMatrix& b);

 private:
  int rows_ = 0;
  int cols_ = 0;
  std::vector<int64_t> rowStart_{0};
  std::vector<int> colIndex_;
  std::vector<Exact> values_;
};

}  // namespace lsrl
