#include "app/studio/player/matrix_conditioning.h"

#include <Eigen/Dense>
#include <QObject>
#include <algorithm>
#include <cmath>

namespace lsrl::studio {

namespace {

constexpr int kMaxDecomposed = 400;

QString number(double v) { return QString::number(v, 'g', 3); }

}  // namespace

MatrixConditioning conditioningOf(const ExactMatrix& m) {
  MatrixConditioning c;
  std::vector<double> rowSum(static_cast<size_t>(m.rows()), 0);
  const bool decompose = m.rows() <= kMaxDecomposed && m.cols() <= kMaxDecomposed;
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(decompose ? m.rows() : 0, decompose ? m.cols() : 0);
  for (const ExactMatrix::Entry& e : m.entries()) {
    const double v = e.value.toDouble();
    if (v == 0) continue;
    ++c.nonZeros;
    c.largest = std::max(c.largest, std::abs(v));
    c.smallest = c.smallest == 0 ? std::abs(v) : std::min(c.smallest, std::abs(v));
    rowSum[static_cast<size_t>(e.row)] += std::abs(v);
    if (decompose) dense(e.row, e.col) = v;
  }
  if (!rowSum.empty()) c.widestRow = *std::max_element(rowSum.begin(), rowSum.end());
  if (decompose && c.nonZeros > 0) {
    const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(dense).singularValues();
    const double tolerance = s(0) * std::max(m.rows(), m.cols()) * 1e-15;
    for (Eigen::Index i = 0; i < s.size(); ++i) {
      if (s(i) > tolerance) c.rank = static_cast<int>(i) + 1;
    }
    c.conditionNumber = s(0) / s(c.rank - 1);
  }
  return c;
}

QString MatrixConditioning::describe() const {
  if (nonZeros == 0) return QObject::tr("all zero");
  const double range = dynamicRange();
  QString text = QObject::tr("dynamic range %1 (|a| %2 … %3)")
                     .arg(number(range), number(smallest), number(largest));
  if (range > std::ldexp(1.0, 53))
    text += QLatin1Char('\n') + QObject::tr("beyond float64 (2^53): sums lose the small terms");
  else if (range > std::ldexp(1.0, 24))
    text += QLatin1Char('\n') + QObject::tr("beyond fp32 (2^24): sums lose the small terms");
  text += QLatin1Char('\n') + QObject::tr("widest row Σ|a| = %1").arg(number(widestRow));
  if (conditionNumber) {
    text += QLatin1Char('\n') + QObject::tr("condition number σ₁/σ_r = %1 (rank %2)")
                                    .arg(number(*conditionNumber))
                                    .arg(rank);
  }
  return text;
}

}  // namespace lsrl::studio
