// The values one component of a node can take over an input domain: an interval,
// refined, where the values are rational and regularly spaced, by a grid
// offset + step·ℤ. The grid is what lets the precision pass prove that a step's input
// never falls inside its ramp (tokens are whole numbers, comparisons sit at halves), so
// that a smaller step scale gives the same outputs (docs/precision.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/numbers/exact.h"
#include "core/numbers/exact_field.h"

namespace lsrl {

struct ValueRange {
  Exact lo;
  Exact hi;
  bool onGrid = false;  // the values lie on offset + step·ℤ (step 0: the value offset)
  mpq_class offset;
  mpq_class step;

  static ValueRange point(const Exact& v);
  static ValueRange interval(const Exact& lo, const Exact& hi);
  // [lo, hi] ∩ (offset + step·ℤ), the interval narrowed to grid points.
  static ValueRange grid(const Exact& lo, const Exact& hi, const mpq_class& offset,
                         const mpq_class& step);

  bool isPoint() const { return lo == hi; }
  // Every value is 0 or 1.
  bool isBoolean() const;
  Exact maxAbs() const;
  // The smallest value > 0 (none when every value is ≤ 0). Without a grid, lo when lo > 0,
  // else none: a continuous range that reaches above 0 from ≤ 0 has no smallest one.
  std::optional<Exact> smallestPositive() const;
  // The largest value ≤ 0 (none when every value is > 0, or a continuous range crosses 0).
  std::optional<Exact> largestNonPositive() const;
  // "[0, 9] on Z", "{0, 1}", "{1/2}", "[-1, 1]".
  std::string describe() const;
};

// Σ coefficient·term + bias over independent terms.
struct AffineTerm {
  Exact coefficient;
  const ValueRange* range;
};
ValueRange affine(const std::vector<AffineTerm>& terms, const Exact& bias);
ValueRange join(const ValueRange& a, const ValueRange& b);
ValueRange relu(const ValueRange& a);
ValueRange product(const ValueRange& a, const ValueRange& b);

// gcd of two rationals ≥ 0 (the largest g with a, b ∈ g·ℤ); gcd(0, x) = |x|.
mpq_class rationalGcd(const mpq_class& a, const mpq_class& b);

}  // namespace lsrl
