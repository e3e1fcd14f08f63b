#include "app/studio/zoo/lattice_geometry.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "core/seed_models/lattice.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

constexpr int kArcPoints = 16;

const Tensor& array(const seed_models::Trace& trace, const std::string& prefix,
                    const std::string& name, std::vector<int64_t> shape) {
  if (!trace.has(prefix + name))
    throw Error("the Lattice view needs the trace array \"" + prefix + name + "\"");
  const Tensor& a = trace.get(prefix + name);
  if (a.shape != shape) {
    throw Error("the Lattice trace array \"" + prefix + name + "\" has shape " +
                shapeText(a.shape) + ", expected " + shapeText(shape));
  }
  return a;
}

double norm(const double* v, int d) {
  double s = 0;
  for (int j = 0; j < d; ++j) s += v[j] * v[j];
  return std::sqrt(s);
}

}  // namespace

LatticeGeometry::LatticeGeometry(const seed_models::Trace& trace, int head, int layer) {
  const std::string p = seed_models::latticeTracePrefix(layer, head);
  if (!trace.has(p + "slots"))
    throw Error("the Lattice view needs the trace array \"" + p + "slots\"");
  const Tensor& slots = trace.get(p + "slots");
  if (slots.shape.size() != 3)
    throw Error("the Lattice trace array \"" + p + "slots\" has shape " + shapeText(slots.shape) +
                ", expected [T, m, d]");
  const int64_t T = slots.shape[0], m = slots.shape[1], d = slots.shape[2];
  T_ = static_cast<int>(T);
  m_ = static_cast<int>(m);
  d_ = static_cast<int>(d);
  slots_ = slots.data;
  initialSlots_ = array(trace, p, "slots_initial", {m, d}).data;
  incoming_ = array(trace, p, "incoming", {T, d}).data;
  parallel_ = array(trace, p, "parallel", {T, m, d}).data;
  orthogonal_ = array(trace, p, "orthogonal", {T, m, d}).data;
  write_ = array(trace, p, "write_strength", {T, m}).data;
  theta_ = array(trace, p, "theta", {T, m}).data;
  perp_ = array(trace, p, "perp_frac", {T, m}).data;

  // The projection: identity for d ≤ 3, else the leading eigenvectors of Σ s sᵀ.
  basis_.assign(static_cast<size_t>(d_), {0, 0, 0});
  std::array<double, 3> energy{};
  if (d_ <= 3) {
    for (int j = 0; j < d_; ++j) basis_[static_cast<size_t>(j)][static_cast<size_t>(j)] = 1;
    auto add = [&](const std::vector<double>& v) {
      for (size_t i = 0; i < v.size(); ++i)
        if (std::isfinite(v[i])) energy[i % static_cast<size_t>(d_)] += v[i] * v[i];
    };
    add(initialSlots_);
    add(slots_);
  } else {
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(d_, d_);
    auto add = [&](const std::vector<double>& v) {
      for (size_t r = 0; r + static_cast<size_t>(d_) <= v.size(); r += static_cast<size_t>(d_)) {
        Eigen::Map<const Eigen::VectorXd> s(v.data() + r, d_);
        if (s.allFinite()) gram.noalias() += s * s.transpose();
      }
    };
    add(initialSlots_);
    add(slots_);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
    for (int k = 0; k < 3; ++k) {
      const int col = d_ - 1 - k;  // eigenvalues ascend
      Eigen::VectorXd axis = eig.eigenvectors().col(col);
      Eigen::Index big = 0;
      axis.cwiseAbs().maxCoeff(&big);
      if (axis(big) < 0) axis = -axis;  // reproducible signs
      for (int j = 0; j < d_; ++j) basis_[static_cast<size_t>(j)][static_cast<size_t>(k)] = axis(j);
      energy[static_cast<size_t>(k)] = std::max(0.0, eig.eigenvalues()(col));
    }
  }
  double total = 0;
  if (d_ <= 3) {
    for (double e : energy) total += e;
  } else {
    // Σ of all eigenvalues = the trace of Σ s sᵀ.
    for (const auto* v : {&initialSlots_, &slots_})
      for (double x : *v)
        if (std::isfinite(x)) total += x * x;
  }
  for (size_t k = 0; k < 3; ++k) explained_[k] = total > 0 ? energy[k] / total : 0;

  trails_.assign(static_cast<size_t>(m_), {});
  initial_.clear();
  for (int i = 0; i < m_; ++i) {
    initial_.push_back(project(initialSlots_.data() + static_cast<size_t>(i) * d_));
    for (int t = 0; t < T_; ++t)
      trails_[static_cast<size_t>(i)].push_back(
          project(slots_.data() + (static_cast<size_t>(t) * m_ + i) * d_));
  }
}

std::string LatticeGeometry::axisName(int k) const {
  if (projected()) return "PC" + std::to_string(k + 1);
  return std::string(1, static_cast<char>('x' + k));
}

Point3 LatticeGeometry::project(const double* v) const {
  Point3 out{0, 0, 0};
  for (int j = 0; j < d_; ++j)
    for (size_t k = 0; k < 3; ++k) out[k] += v[j] * basis_[static_cast<size_t>(j)][k];
  return out;
}

LatticeFrame LatticeGeometry::frame(int step) const {
  LatticeFrame f;
  if (T_ == 0) return f;
  const int t = std::clamp(step, 0, T_ - 1);
  f.step = t;
  const size_t D = static_cast<size_t>(d_);
  const double* h = incoming_.data() + static_cast<size_t>(t) * D;
  f.incomingNorm = norm(h, d_);
  const double scale = f.incomingNorm > 0 && std::isfinite(f.incomingNorm) ? 1 / f.incomingNorm : 0;
  std::vector<double> tmp(D);
  auto scaled = [&](const double* v) {
    for (size_t j = 0; j < D; ++j) tmp[j] = v[j] * scale;
    return project(tmp.data());
  };
  f.incoming = scaled(h);
  for (int i = 0; i < m_; ++i) {
    const size_t si = static_cast<size_t>(i);
    const double* a = t == 0 ? initialSlots_.data() + si * D
                             : slots_.data() + ((static_cast<size_t>(t) - 1) * m_ + si) * D;
    const double* b = slots_.data() + (static_cast<size_t>(t) * m_ + si) * D;
    const size_t at = (static_cast<size_t>(t) * m_ + si) * D;
    f.before.push_back(project(a));
    f.after.push_back(project(b));
    f.parallel.push_back(scaled(parallel_.data() + at));
    f.orthogonal.push_back(scaled(orthogonal_.data() + at));
    const size_t ti = static_cast<size_t>(t) * m_ + si;
    f.writeStrength.push_back(write_[ti]);
    f.theta.push_back(theta_[ti]);
    f.perpFrac.push_back(perp_[ti]);
    // The rotation from a to b: directions slerped in their plane, lengths interpolated.
    const double na = norm(a, d_), nb = norm(b, d_);
    double cosAB = 0;
    for (size_t j = 0; j < D; ++j) cosAB += a[j] * b[j];
    cosAB = na > 0 && nb > 0 ? std::clamp(cosAB / (na * nb), -1.0, 1.0) : 1.0;
    const double angle = std::acos(cosAB);
    std::vector<Point3> arc;
    for (int k = 0; k <= kArcPoints; ++k) {
      const double u = static_cast<double>(k) / kArcPoints;
      double wa = 1 - u, wb = u;
      if (angle > 1e-9 && std::sin(angle) > 1e-9) {
        wa = std::sin((1 - u) * angle) / std::sin(angle);
        wb = std::sin(u * angle) / std::sin(angle);
      }
      const double len = (1 - u) * na + u * nb;
      double n = 0;
      for (size_t j = 0; j < D; ++j) {
        tmp[j] = (na > 0 ? wa * a[j] / na : 0) + (nb > 0 ? wb * b[j] / nb : 0);
        n += tmp[j] * tmp[j];
      }
      n = std::sqrt(n);
      for (size_t j = 0; j < D; ++j) tmp[j] = n > 0 ? tmp[j] / n * len : 0;
      arc.push_back(project(tmp.data()));
    }
    f.arcs.push_back(std::move(arc));
  }
  return f;
}

StateSeries LatticeGeometry::slotTrajectories() const {
  StateSeries s;
  s.title = "Lattice slot trajectories (row 0: the initial slots; row t+1: after token t)";
  for (int i = 0; i < m_; ++i)
    for (int j = 0; j < d_; ++j)
      s.labels.push_back("s" + std::to_string(i + 1) + "[" + std::to_string(j) + "]");
  s.values.push_back(initialSlots_);
  const size_t width = static_cast<size_t>(m_) * d_;
  for (int t = 0; t < T_; ++t) {
    const auto first = slots_.begin() + static_cast<std::ptrdiff_t>(t * width);
    s.values.emplace_back(first, first + static_cast<std::ptrdiff_t>(width));
  }
  return s;
}

StateSeries LatticeGeometry::framePoints(int step) const {
  StateSeries s;
  s.title = "Lattice frame points";
  s.labels = {"kind", "slot", axisName(0), axisName(1), axisName(2)};
  const LatticeFrame f = frame(step);
  auto row = [&](double kind, double slot, const Point3& p) {
    s.values.push_back({kind, slot, p[0], p[1], p[2]});
  };
  for (int i = 0; i < m_ && !f.before.empty(); ++i) {
    const size_t si = static_cast<size_t>(i);
    row(0, i, f.before[si]);
    row(1, i, f.after[si]);
    const Point3 tip{f.before[si][0] + f.orthogonal[si][0], f.before[si][1] + f.orthogonal[si][1],
                     f.before[si][2] + f.orthogonal[si][2]};
    row(2, i, tip);
  }
  if (!f.before.empty()) row(3, -1, f.incoming);
  return s;
}

LatticeGeometry::Extent LatticeGeometry::extent() const {
  Extent e;
  auto reach = [&e](const Point3& p) {
    for (double v : p)
      if (std::isfinite(v)) e.sphere = std::max(e.sphere, std::abs(v));
  };
  for (int t = 0; t < T_; ++t) {
    const LatticeFrame f = frame(t);
    for (size_t i = 0; i < f.before.size(); ++i) {
      reach(f.before[i]);
      reach(f.after[i]);
      for (const Point3& p : f.arcs[i]) reach(p);
      const double length = std::sqrt(f.orthogonal[i][0] * f.orthogonal[i][0] +
                                      f.orthogonal[i][1] * f.orthogonal[i][1] +
                                      f.orthogonal[i][2] * f.orthogonal[i][2]);
      if (std::isfinite(length)) e.orthogonal = std::max(e.orthogonal, length);
    }
    reach(f.incoming);
  }
  return e;
}

}  // namespace lsrl::studio
