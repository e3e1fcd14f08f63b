// Random sparse matrices for the recurrent kernels' tests (CPU twins and Vulkan alike).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/float_batch/layouts.h"

namespace lsrl::testing_common {

// rows × cols with up to perRow entries per row (distinct sorted columns; some rows
// empty), each row's absolute values summing to at most rowSum, so recurrences through
// it stay bounded.
inline float_batch::CsrMatrix randomCsr(std::mt19937& rng, int rows, int cols, int perRow,
                                        float rowSum) {
  float_batch::CsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  std::uniform_int_distribution<int> column(0, cols - 1), count(0, perRow);
  std::uniform_real_distribution<float> value(-1, 1);
  for (int r = 0; r < rows; ++r) {
    std::vector<uint32_t> picked;
    for (int k = count(rng); k > 0; --k) picked.push_back(uint32_t(column(rng)));
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    std::vector<float> vals;
    float sum = 0;
    for (size_t k = 0; k < picked.size(); ++k)
      vals.push_back(value(rng)), sum += std::abs(vals.back());
    for (size_t k = 0; k < picked.size(); ++k) {
      A.col.push_back(picked[k]);
      A.val.push_back(vals[k] * rowSum / std::max(sum, 1.0f));
    }
    A.rowPtr.push_back(uint32_t(A.col.size()));
  }
  return A;
}

}  // namespace lsrl::testing_common
