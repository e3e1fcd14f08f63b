// How well a compiled layer's matrix survives floating point (docs/precision.md): the
// dynamic range of its entries (fp32 keeps about 24 bits, so a sum that mixes terms more
// than 2²⁴ apart drops the small ones), its condition number and its widest row. The
// Debranching inspector shows it beside the matrix, so a fold that mixes the paper's
// λ = 10¹⁰ with values of order 1 can be seen where it happens.
#pragma once

#include <QString>
#include <optional>

#include "core/graph/matrix.h"

namespace lsrl::studio {

struct MatrixConditioning {
  size_t nonZeros = 0;
  double largest = 0;    // max |a|
  double smallest = 0;   // min |a| over the non-zero entries
  double widestRow = 0;  // max over rows of Σ|a|
  // σ₁/σ_r over the r non-zero singular values, and r; none for matrices too big to
  // decompose here (over 400 × 400).
  std::optional<double> conditionNumber;
  int rank = 0;

  double dynamicRange() const { return smallest > 0 ? largest / smallest : 0; }
  // "dynamic range 1e+13 (|a| 1 … 1e+13)", "beyond fp32 (2^24): …", one line per measure.
  QString describe() const;
};

MatrixConditioning conditioningOf(const ExactMatrix& m);

}  // namespace lsrl::studio
