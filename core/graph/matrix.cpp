#include "core/graph/matrix.h"

#include <algorithm>
#include <numeric>

#include "core/util/error.h"

namespace lsrl {

ExactVector zerosVector(int n) { return ExactVector(static_cast<size_t>(n)); }

ExactVector filledVector(int n, const Exact& value) {
  return ExactVector(static_cast<size_t>(n), value);
}

namespace {

// `rows`, once the shape is known not to be negative: checked before anything is allocated
// for it, as a negative size would reach the allocator as a huge one ("vector::reserve").
int checkedRows(int rows, int cols) {
  if (rows < 0 || cols < 0) {
    throw Error("matrix shape " + std::to_string(rows) + "x" + std::to_string(cols) +
                " is negative");
  }
  return rows;
}

}  // namespace

ExactMatrix::ExactMatrix(int rows, int cols)
    : rows_(checkedRows(rows, cols)), cols_(cols), rowStart_(static_cast<size_t>(rows) + 1, 0) {}

ExactMatrix ExactMatrix::identity(int n, const Exact& scale) {
  (void)checkedRows(n, n);
  std::vector<Entry> e;
  e.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) e.push_back({i, i, scale});
  return fromEntries(n, n, std::move(e));
}

ExactMatrix ExactMatrix::filled(int rows, int cols, const Exact& value) {
  (void)checkedRows(rows, cols);
  std::vector<Entry> e;
  e.reserve(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) e.push_back({i, j, value});
  return fromEntries(rows, cols, std::move(e));
}

ExactMatrix ExactMatrix::selection(int start, int end, int cols) {
  std::vector<Entry> e;
  for (int i = start; i < end; ++i) e.push_back({i - start, i, Exact(1)});
  return fromEntries(end - start, cols, std::move(e));
}

ExactMatrix ExactMatrix::fromEntries(int rows, int cols, std::vector<Entry> entries) {
  ExactMatrix m(rows, cols);
  for (const Entry& e : entries) {
    if (e.row < 0 || e.row >= rows || e.col < 0 || e.col >= cols) {
      throw Error("matrix entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) +
                  ") is outside the " + std::to_string(rows) + "x" + std::to_string(cols) +
                  " matrix");
    }
  }
  const auto before = [](const Entry& a, const Entry& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  };
  // Entries that come in compressed-row order already (a conversion from another sparse
  // form) are moved in as they are: sorting and copying millions of exact values is what
  // such conversions would otherwise spend their time on.
  const bool strictlyOrdered =
      std::adjacent_find(entries.begin(), entries.end(), [&before](const Entry& a, const Entry& b) {
        return !before(a, b);
      }) == entries.end();
  if (strictlyOrdered) {
    m.colIndex_.reserve(entries.size());
    m.values_.reserve(entries.size());
    for (Entry& e : entries) {
      if (e.value.isZero()) continue;
      m.colIndex_.push_back(e.col);
      m.values_.push_back(std::move(e.value));
      ++m.rowStart_[static_cast<size_t>(e.row) + 1];
    }
    std::partial_sum(m.rowStart_.begin(), m.rowStart_.end(), m.rowStart_.begin());
    return m;
  }
  std::stable_sort(entries.begin(), entries.end(), before);
  for (size_t i = 0; i < entries.size();) {
    size_t j = i + 1;
    Exact sum = entries[i].value;
    while (j < entries.size() && entries[j].row == entries[i].row &&
           entries[j].col == entries[i].col) {
      sum += entries[j].value;
      ++j;
    }
    if (!sum.isZero()) {
      m.colIndex_.push_back(entries[i].col);
      m.values_.push_back(std::move(sum));
      ++m.rowStart_[static_cast<size_t>(entries[i].row) + 1];
    }
    i = j;
  }
  std::partial_sum(m.rowStart_.begin(), m.rowStart_.end(), m.rowStart_.begin());
  return m;
}

ExactMatrix ExactMatrix::fromDense(const std::vector<ExactVector>& rows, int cols) {
  std::vector<Entry> e;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<int>(rows[i].size()) != cols) {
      throw Error("matrix row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) +
                  " entries, expected " + std::to_string(cols));
    }
    for (int j = 0; j < cols; ++j) {
      if (!rows[i][static_cast<size_t>(j)].isZero())
        e.push_back({static_cast<int>(i), j, rows[i][static_cast<size_t>(j)]});
    }
  }
  return fromEntries(static_cast<int>(rows.size()), cols, std::move(e));
}

ExactMatrix ExactMatrix::hstack(const std::vector<ExactMatrix>& blocks) {
  if (blocks.empty()) return ExactMatrix();
  const int rows = blocks.front().rows();
  std::vector<Entry> e;
  int offset = 0;
  for (const ExactMatrix& b : blocks) {
    if (b.rows() != rows) {
      throw Error("hstack: block has " + std::to_string(b.rows()) + " rows, expected " +
                  std::to_string(rows));
    }
    for (Entry x : b.entries()) {
      x.col += offset;
      e.push_back(std::move(x));
    }
    offset += b.cols();
  }
  return fromEntries(rows, offset, std::move(e));
}

ExactMatrix ExactMatrix::vstack(const std::vector<ExactMatrix>& blocks) {
  if (blocks.empty()) return ExactMatrix();
  const int cols = blocks.front().cols();
  std::vector<Entry> e;
  int offset = 0;
  for (const ExactMatrix& b : blocks) {
    if (b.cols() != cols) {
      throw Error("vstack: block has " + std::to_string(b.cols()) + " columns, expected " +
                  std::to_string(cols));
    }
    for (Entry x : b.entries()) {
      x.row += offset;
      e.push_back(std::move(x));
    }
    offset += b.rows();
  }
  return fromEntries(offset, cols, std::move(e));
}

Exact ExactMatrix::at(int row, int col) const {
  if (row < 0 || row >= rows_ || col < 0 || col >= cols_) {
    throw Error("matrix index (" + std::to_string(row) + ", " + std::to_string(col) +
                ") is outside the " + std::to_string(rows_) + "x" + std::to_string(cols_) +
                " matrix");
  }
  for (int64_t k = rowStart_[static_cast<size_t>(row)]; k < rowStart_[static_cast<size_t>(row) + 1];
       ++k) {
    if (colIndex_[static_cast<size_t>(k)] == col) return values_[static_cast<size_t>(k)];
  }
  return Exact();
}

std::vector<ExactMatrix::Entry> ExactMatrix::entries() const {
  std::vector<Entry> e;
  e.reserve(values_.size());
  for (int r = 0; r < rows_; ++r) {
    for (int64_t k = rowStart_[static_cast<size_t>(r)]; k < rowStart_[static_cast<size_t>(r) + 1];
         ++k) {
      e.push_back({r, colIndex_[static_cast<size_t>(k)], values_[static_cast<size_t>(k)]});
    }
  }
  return e;
}

ExactMatrix ExactMatrix::operator*(const ExactMatrix& o) const {
  if (cols_ != o.rows_) {
    throw Error("matrix product: " + std::to_string(rows_) + "x" + std::to_string(cols_) +
                " times " + std::to_string(o.rows_) + "x" + std::to_string(o.cols_));
  }
  std::vector<Entry> e;
  for (int r = 0; r < rows_; ++r) {
    for (int64_t k = rowStart_[static_cast<size_t>(r)]; k < rowStart_[static_cast<size_t>(r) + 1];
         ++k) {
      const int mid = colIndex_[static_cast<size_t>(k)];
      const Exact& a = values_[static_cast<size_t>(k)];
      for (int64_t l = o.rowStart_[static_cast<size_t>(mid)];
           l < o.rowStart_[static_cast<size_t>(mid) + 1]; ++l) {
        e.push_back(
            {r, o.colIndex_[static_cast<size_t>(l)], a * o.values_[static_cast<size_t>(l)]});
      }
    }
  }
  return fromEntries(rows_, o.cols_, std::move(e));
}

ExactVector ExactMatrix::operator*(const ExactVector& v) const {
  if (static_cast<int>(v.size()) != cols_) {
    throw Error("matrix-vector product: " + std::to_string(rows_) + "x" + std::to_string(cols_) +
                " times a vector of " + std::to_string(v.size()));
  }
  ExactVector out(static_cast<size_t>(rows_));
  for (int r = 0; r < rows_; ++r) {
    for (int64_t k = rowStart_[static_cast<size_t>(r)]; k < rowStart_[static_cast<size_t>(r) + 1];
         ++k) {
      out[static_cast<size_t>(r)] += values_[static_cast<size_t>(k)] *
                                     v[static_cast<size_t>(colIndex_[static_cast<size_t>(k)])];
    }
  }
  return out;
}

ExactMatrix ExactMatrix::scaled(const Exact& s) const {
  if (s.isZero()) return ExactMatrix(rows_, cols_);
  ExactMatrix m = *this;
  for (Exact& v : m.values_) v *= s;
  return m;
}

bool ExactMatrix::isIdentity() const {
  if (rows_ != cols_ || values_.size() != static_cast<size_t>(rows_)) return false;
  for (int r = 0; r < rows_; ++r) {
    const size_t k = static_cast<size_t>(rowStart_[static_cast<size_t>(r)]);
    if (rowStart_[static_cast<size_t>(r) + 1] != static_cast<int64_t>(k) + 1 || colIndex_[k] != r ||
        !values_[k].isOne())
      return false;
  }
  return true;
}

int ExactMatrix::conductor() const {
  int n = 4;
  for (const Exact& v : values_) n = std::lcm(n, v.conductor());
  return n;
}

bool operator==(const ExactMatrix& a, const ExactMatrix& b) {
  return a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.rowStart_ == b.rowStart_ &&
         a.colIndex_ == b.colIndex_ && a.values_ == b.values_;
}

}  // namespace lsrl
