// Principal component analysis of a state trajectory (Qt-free): centre the rows, take
// the covariance's eigen-decomposition (Eigen), project every step onto the leading
// axes. The trajectory views plot the projection in 2D and 3D.
#pragma once

#include <vector>

#include "app/studio/plots/state_series.h"

namespace lsrl::studio {

struct PcaResult {
  std::vector<double> mean;                    // per component
  std::vector<double> variances;               // per principal axis, descending
  std::vector<std::vector<double>> axes;       // [axis][component], unit length
  std::vector<std::vector<double>> projected;  // [step][axis]
  double totalVariance = 0;                    // trace of the covariance
  // Fraction of the total variance along axis k (0 when the trajectory is constant).
  double explained(int k) const;
};

// The leading `maxAxes` axes (fewer when the trajectory spans fewer). Each axis's sign
// is fixed so that its largest-magnitude entry is positive, so results are
// reproducible. Wide states (more components than steps) use the steps' Gram matrix.
PcaResult computePca(const StateSeries& series, int maxAxes = 3);

// Axis k's coordinate of a projected step (0 when the trajectory spans fewer axes).
inline double coord(const PcaResult& pca, int step, int k) {
  const auto& row = pca.projected[static_cast<size_t>(step)];
  return k < static_cast<int>(row.size()) ? row[static_cast<size_t>(k)] : 0.0;
}

}  // namespace lsrl::studio
