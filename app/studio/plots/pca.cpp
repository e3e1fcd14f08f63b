#include "app/studio/plots/pca.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace lsrl::studio {

double PcaResult::explained(int k) const {
  if (k < 0 || k >= static_cast<int>(variances.size()) || totalVariance <= 0) return 0;
  return variances[static_cast<size_t>(k)] / totalVariance;
}

PcaResult computePca(const StateSeries& series, int maxAxes) {
  PcaResult result;
  const int T = series.steps();
  const int d = series.components();
  if (T == 0 || d == 0) return result;
  Eigen::MatrixXd X(T, d);
  for (int t = 0; t < T; ++t)
    for (int c = 0; c < d; ++c)
      X(t, c) = series.values[static_cast<size_t>(t)][static_cast<size_t>(c)];
  const Eigen::RowVectorXd mean = X.colwise().mean();
  X.rowwise() -= mean;
  result.mean.assign(mean.data(), mean.data() + d);
  const double norm = T > 1 ? 1.0 / (T - 1) : 1.0;

  // Eigenvalues come ascending; the axes we want are the last columns.
  Eigen::VectorXd values;
  Eigen::MatrixXd axes;  // d x r
  if (d <= T) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver((X.transpose() * X) * norm);
    values = solver.eigenvalues();
    axes = solver.eigenvectors();
  } else {
    // Same non-zero spectrum from the T x T Gram matrix: axis = Xᵀu / |Xᵀu|.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver((X * X.transpose()) * norm);
    values = solver.eigenvalues();
    axes = X.transpose() * solver.eigenvectors();
    for (int k = 0; k < axes.cols(); ++k) {
      const double n = axes.col(k).norm();
      if (n > 0) axes.col(k) /= n;
    }
  }
  result.totalVariance = (X.array().square().sum()) * norm;
  const double scale = std::max(result.totalVariance, 1e-300);
  const int available = static_cast<int>(values.size());
  for (int i = available - 1; i >= 0 && static_cast<int>(result.variances.size()) < maxAxes; --i) {
    const double v = std::max(values(i), 0.0);
    if (v <= 1e-12 * scale) break;  // the trajectory spans no more directions
    Eigen::VectorXd axis = axes.col(i);
    Eigen::Index biggest = 0;
    axis.cwiseAbs().maxCoeff(&biggest);
    if (axis(biggest) < 0) axis = -axis;
    result.variances.push_back(v);
    result.axes.emplace_back(axis.data(), axis.data() + d);
  }
  const int k = static_cast<int>(result.axes.size());
  result.projected.assign(static_cast<size_t>(T), std::vector<double>(static_cast<size_t>(k)));
  for (int a = 0; a < k; ++a) {
    const Eigen::Map<const Eigen::VectorXd> axis(result.axes[static_cast<size_t>(a)].data(), d);
    const Eigen::VectorXd p = X * axis;
    for (int t = 0; t < T; ++t)
      result.projected[static_cast<size_t>(t)][static_cast<size_t>(a)] = p(t);
  }
  return result;
}

}  // namespace lsrl::studio
