// Float64 sums of one row (a bias and its products) in order of decreasing magnitude.
//
// LSRL programs cancel large terms on purpose: the sugar's conditionals add and subtract
// λ-scaled steps (λ = 1e10), and a compiled layer folds those differences into one row
// whose products reach 1e13 while the row's value is a token or a small real. Summed in
// index order, a small term met between the two halves of such a pair is rounded to the
// pair's spacing (1e-3 at 1e13) and lost. In decreasing magnitude the halves of each pair
// meet first and cancel exactly (Sterbenz), and the small terms are added to what is left
// (Higham, Accuracy and Stability of Numerical Algorithms, §4.2: the order of choice under
// heavy cancellation). docs/compiler.md, "Float64 row sums".
#pragma once

#include <algorithm>
#include <cmath>

namespace lsrl {

// Sums terms[0..n) in order of decreasing |term|, ties in index order; reorders terms.
inline double sumByDecreasingMagnitude(double* terms, int n) {
  if (n <= 24) {  // rows are short: an insertion sort beats std::stable_sort's allocation
    for (int i = 1; i < n; ++i) {
      const double t = terms[i];
      const double a = std::abs(t);
      int j = i;
      for (; j > 0 && std::abs(terms[j - 1]) < a; --j) terms[j] = terms[j - 1];
      terms[j] = t;
    }
  } else {
    std::stable_sort(terms, terms + n,
                     [](double x, double y) { return std::abs(x) > std::abs(y); });
  }
  double acc = 0.0;
  for (int i = 0; i < n; ++i) acc += terms[i];
  return acc;
}

}  // namespace lsrl
