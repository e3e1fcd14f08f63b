// The fused Lattice recurrence (core/seed_models/lattice_scan.h): its float64 forward against
// latticeStep token by token in every fused form (the ε guard included), its float32
// forward against the float64 one, and its backward against central finite differences.
#include "core/seed_models/lattice_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/expect_error.h"

namespace lsrl::seed_models {
namespace {

struct Form {
  LatticeMode mode;
  LatticeVariant variant = LatticeVariant::Dec;
  LatticeBeta beta = LatticeBeta::Norm;
};

std::string nameOf(const Form& f) {
  return std::string(latticeModeName(f.mode)) + "/" + latticeVariantName(f.variant) + "/" +
         latticeBetaName(f.beta);
}

const std::vector<Form> kForms = {
    {LatticeMode::Nosr},
    {LatticeMode::Nosr, LatticeVariant::Enc},
    {LatticeMode::Nosr, LatticeVariant::Sim},
    {LatticeMode::Nosr, LatticeVariant::Dec, LatticeBeta::ClosedForm},
    {LatticeMode::Nosr, LatticeVariant::Enc, LatticeBeta::ClosedForm},
    {LatticeMode::Osr, LatticeVariant::Enc},
    {LatticeMode::Delta},
    {LatticeMode::GatedDeltaNet},
    {LatticeMode::LinearAttention},
    {LatticeMode::Mamba2},
};

LatticeOptions optionsOf(const Form& f) {
  LatticeOptions o;
  o.mode = f.mode;
  o.variant = f.variant;
  o.beta = f.beta;
  return o;
}

// A batch of random inputs: unit slots, except slot 1 of (b 0, h 0), which is zero (the ε
// guard) unless `allNonZero`; γ in (0, 1), μ in (0.5, 1).
struct Problem {
  LatticeScanShape sh;
  Vector s0, k, v, q, gamma, mu;

  Problem(LatticeScanShape shape, uint64_t seed, bool allNonZero = false) : sh(shape) {
    Rng rng(seed);
    const auto fill = [&](Vector& x, size_t n, double lo, double hi, bool normal) {
      x.resize(n);
      for (double& e : x) e = normal ? rng.normal() * 0.7 : rng.uniform(lo, hi);
    };
    const auto BT = static_cast<size_t>(sh.batch * sh.tokens * sh.heads);
    const auto BH = static_cast<size_t>(sh.batch * sh.heads);
    fill(s0, BH * sh.m * sh.d, 0, 0, true);
    for (size_t slot = 0; slot < BH * sh.m; ++slot) {
      double n = 0;
      for (int j = 0; j < sh.d; ++j) n += s0[slot * sh.d + j] * s0[slot * sh.d + j];
      for (int j = 0; j < sh.d; ++j) s0[slot * sh.d + j] /= std::sqrt(n);
    }
    if (!allNonZero)
      for (int j = 0; j < sh.d; ++j) s0[static_cast<size_t>(sh.d) + j] = 0;
    fill(k, BT * sh.m, 0, 0, true);
    fill(v, BT * sh.d, 0, 0, true);
    fill(q, BT * sh.m, 0, 0, true);
    fill(gamma, BT, 0.05, 0.95, false);
    fill(mu, BT, 0.5, 1.0, false);
  }
  LatticeScanInputs<double> inputs() const {
    return {k.data(), v.data(), q.data(), gamma.data(), mu.data()};
  }
  Vector forward(const LatticeOptions& opt, Vector* states = nullptr) const {
    Vector y(static_cast<size_t>(sh.batch * sh.tokens * sh.heads * sh.d));
    if (states) states->resize(static_cast<size_t>(sh.batch * sh.heads * sh.tokens) * sh.m * sh.d);
    latticeScanForward<double>(sh, opt, s0.data(), inputs(), y.data(),
                               states ? states->data() : nullptr);
    return y;
  }
};

double relErr(double got, double want) { return std::abs(got - want) / (1 + std::abs(want)); }

TEST(LatticeScan, ForwardMatchesLatticeStep) {
  for (const LatticeScanShape sh :
       {LatticeScanShape{2, 5, 2, 3, 4}, LatticeScanShape{2, 5, 2, 5, 3}})
    for (const Form& f : kForms) {
      const Problem p(sh, 7);
      const LatticeOptions opt = optionsOf(f);
      Vector states;
      const Vector y = p.forward(opt, &states);
      const int m = sh.m, d = sh.d;
      for (int64_t b = 0; b < sh.batch; ++b)
        for (int64_t h = 0; h < sh.heads; ++h) {
          const size_t bh = static_cast<size_t>(b * sh.heads + h);
          LatticeSlots S{d, m, Vector(p.s0.begin() + bh * m * d, p.s0.begin() + (bh + 1) * m * d)};
          for (int64_t t = 0; t < sh.tokens; ++t) {
            const size_t at = static_cast<size_t>((b * sh.tokens + t) * sh.heads + h);
            for (size_t j = 0; j < S.data.size(); ++j)
              ASSERT_LE(relErr(states[(bh * sh.tokens + t) * m * d + j], S.data[j]), 1e-12)
                  << nameOf(f) << " S at t=" << t;
            const LatticeToken tok{{p.k.begin() + at * m, p.k.begin() + (at + 1) * m},
                                   {p.v.begin() + at * d, p.v.begin() + (at + 1) * d},
                                   {p.q.begin() + at * m, p.q.begin() + (at + 1) * m},
                                   p.gamma[at],
                                   p.mu[at]};
            const LatticeStepOut out = latticeStep(S, tok, opt);
            for (int j = 0; j < d; ++j)
              ASSERT_LE(relErr(y[at * d + j], out.y[j]), 1e-12) << nameOf(f) << " y at t=" << t;
          }
        }
    }
}

TEST(LatticeScan, FloatAgreesWithDouble) {
  const LatticeScanShape sh{2, 16, 2, 8, 8};
  for (const Form& f : kForms) {
    const Problem p(sh, 3);
    const Vector want = p.forward(optionsOf(f));
    const auto toFloat = [](const Vector& x) { return std::vector<float>(x.begin(), x.end()); };
    const auto s0 = toFloat(p.s0), k = toFloat(p.k), v = toFloat(p.v), q = toFloat(p.q),
               gamma = toFloat(p.gamma), mu = toFloat(p.mu);
    std::vector<float> y(want.size());
    latticeScanForward<float>(sh, optionsOf(f), s0.data(),
                              {k.data(), v.data(), q.data(), gamma.data(), mu.data()}, y.data(),
                              nullptr);
    for (size_t j = 0; j < y.size(); ++j)
      ASSERT_LE(relErr(y[j], want[j]), 1e-4) << nameOf(f) << " y[" << j << "]";
  }
}

// L = Σ w·y for a random w: the backward's gradients against central differences of L.
TEST(LatticeScan, BackwardMatchesFiniteDifferences) {
  const LatticeScanShape sh{2, 6, 2, 3, 4};
  for (const Form& f : kForms) {
    // All slots non-zero: at a zero slot the guard's branch is not differentiable.
    Problem p(sh, 11, true);
    const LatticeOptions opt = optionsOf(f);
    Rng rng(5);
    Vector w(static_cast<size_t>(sh.batch * sh.tokens * sh.heads * sh.d));
    for (double& x : w) x = rng.normal();
    const auto loss = [&] {
      const Vector y = p.forward(opt);
      double l = 0;
      for (size_t j = 0; j < y.size(); ++j) l += w[j] * y[j];
      return l;
    };
    Vector states;
    p.forward(opt, &states);
    Vector ds0(p.s0.size()), dk(p.k.size()), dv(p.v.size()), dq(p.q.size()), dgamma(p.gamma.size()),
        dmu(p.mu.size());
    latticeScanBackward<double>(
        sh, opt, states.data(), p.inputs(), w.data(),
        {ds0.data(), dk.data(), dv.data(), dq.data(), dgamma.data(), dmu.data()});
    const std::pair<Vector*, const Vector*> checks[] = {
        {&p.s0, &ds0}, {&p.k, &dk}, {&p.v, &dv}, {&p.q, &dq}, {&p.gamma, &dgamma}, {&p.mu, &dmu}};
    const char* names[] = {"s0", "k", "v", "q", "gamma", "mu"};
    for (int c = 0; c < 6; ++c) {
      Vector& x = *checks[c].first;
      for (size_t j = 0; j < x.size(); ++j) {
        const double keep = x[j], step = 1e-6;
        x[j] = keep + step;
        const double up = loss();
        x[j] = keep - step;
        const double down = loss();
        x[j] = keep;
        const double fd = (up - down) / (2 * step);
        EXPECT_LE(relErr((*checks[c].second)[j], fd), 1e-6)
            << nameOf(f) << " d" << names[c] << "[" << j << "]: " << (*checks[c].second)[j]
            << " vs " << fd;
      }
    }
    if (!latticeScanUsesGamma(opt.mode)) {
      for (double g : dgamma) EXPECT_EQ(g, 0.0) << nameOf(f);
    }
    if (!latticeScanUsesMu(opt.mode)) {
      for (double g : dmu) EXPECT_EQ(g, 0.0) << nameOf(f);
    }
  }
}

TEST(LatticeScan, RefusesFormsItDoesNotFuse) {
  const Problem p({1, 2, 1, 2, 2}, 1);
  for (LatticeMode mode : {LatticeMode::L1, LatticeMode::OutputNormalised}) {
    LatticeOptions opt;
    opt.mode = mode;
    EXPECT_FALSE(latticeScanSupports(opt));
    testing_common::expectError([&] { p.forward(opt); }, "lattice scan", "not fused");
  }
}

}  // namespace
}  // namespace lsrl::seed_models
