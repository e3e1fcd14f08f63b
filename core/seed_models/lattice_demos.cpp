#include "core/seed_models/lattice_demos.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

Vector unitAxis(int n, int i) {
  Vector e(n, 0.0);
  e[i % n] = 1;
  return e;
}

Vector randomUnit(Rng& rng, int n) {
  const LatticeSlots s = randomOrthonormalSlots(n, 1, rng);
  return s.data;
}

LatticeToken token(Vector k, Vector v, Vector q, double gamma) {
  return LatticeToken{std::move(k), std::move(v), std::move(q), gamma, 1.0};
}

std::vector<LatticeToken> rotating(int m, int d, Rng& rng) {
  // A seeded plane; for d = 1 the "circle" degenerates to ±e1.
  const LatticeSlots plane = randomOrthonormalSlots(d, std::min(2, d), rng);
  std::vector<LatticeToken> out;
  for (int t = 0; t < 48; ++t) {
    const double a = 2 * std::numbers::pi * t / 24;
    Vector v(d);
    for (int j = 0; j < d; ++j)
      v[j] = std::cos(a) * plane.slot(0)[j] + (d > 1 ? std::sin(a) * plane.slot(1)[j] : 0.0);
    out.push_back(token(unitAxis(m, t), std::move(v), unitAxis(m, t), 0.5));
  }
  return out;
}

std::vector<LatticeToken> repeated(int m, int d, Rng& rng) {
  const Vector k = randomUnit(rng, m), v = randomUnit(rng, d);
  return std::vector<LatticeToken>(20, token(k, v, k, 0.5));
}

std::vector<LatticeToken> parallel(int m, int d) {
  Vector v = unitAxis(d, 0);
  v[0] = 2;
  return std::vector<LatticeToken>(8, token(unitAxis(m, 0), v, unitAxis(m, 0), 1.0));
}

std::vector<LatticeToken> orthogonalBursts(int m, int d, Rng& rng) {
  const LatticeSlots basis = randomOrthonormalSlots(d, d, rng);
  std::vector<LatticeToken> out;
  for (int b = 0; b < d; ++b) {
    const Vector k = randomUnit(rng, m);
    const Vector v(basis.slot(b), basis.slot(b) + d);
    for (int t = 0; t < 6; ++t) out.push_back(token(k, v, k, 0.5));
  }
  return out;
}

std::vector<LatticeToken> lowRank(int m, int d, Rng& rng) {
  const int r = std::min(2, d);
  const LatticeSlots u = randomOrthonormalSlots(d, r, rng);
  std::vector<LatticeToken> out;
  for (int t = 0; t < 64; ++t) {
    Vector v(d, 0.0);
    for (int p = 0; p < r; ++p) {
      const double c = rng.normal();
      for (int j = 0; j < d; ++j) v[j] += c * u.slot(p)[j];
    }
    for (double& x : v) x += 0.05 * rng.normal();
    Vector k(m);
    for (double& x : k) x = rng.normal() / std::sqrt(m);
    out.push_back(token(k, std::move(v), k, 0.3));
  }
  return out;
}

std::vector<LatticeToken> recall(int m, int d, Rng& rng) {
  std::vector<LatticeToken> out;
  for (int t = 0; t < 4 * m; ++t) {
    const Vector k = randomUnit(rng, m);
    out.push_back(token(k, randomUnit(rng, d), k, 0.5));
  }
  // Reads: γ = 0 and k = 0 write nothing in every mode; v is the value to recall.
  for (int t = 0; t < 2 * m; ++t) {
    const LatticeToken& old = out[rng.next() % static_cast<uint64_t>(4 * m)];
    out.push_back(token(Vector(m, 0.0), old.v, old.k, 0.0));
  }
  return out;
}

}  // namespace

std::vector<std::string> latticeDemoNames() {
  return {"rotating", "repeated", "parallel", "orthogonal_bursts", "low_rank", "recall"};
}

std::vector<LatticeToken> latticeDemo(const std::string& name, int m, int d, uint64_t seed) {
  if (m < 1 || d < 1)
    throw Error("lattice demo \"" + name + "\": m and d must be at least 1, got m = " +
                std::to_string(m) + ", d = " + std::to_string(d));
  Rng rng(seed);
  if (name == "rotating") return rotating(m, d, rng);
  if (name == "repeated") return repeated(m, d, rng);
  if (name == "parallel") return parallel(m, d);
  if (name == "orthogonal_bursts") return orthogonalBursts(m, d, rng);
  if (name == "low_rank") return lowRank(m, d, rng);
  if (name == "recall") return recall(m, d, rng);
  std::string known;
  for (const std::string& n : latticeDemoNames()) known += (known.empty() ? "" : ", ") + n;
  throw Error("lattice: unknown task \"" + name + "\" (known: " + known + ")");
}

}  // namespace lsrl::seed_models
