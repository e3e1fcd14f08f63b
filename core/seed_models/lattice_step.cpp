#include "core/seed_models/lattice_step.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr const char* kModeNames[] = {
    "nosr",   "osr",           "l1", "output_normalised", "delta", "linear_attention",
    "mamba2", "gated_deltanet"};
constexpr const char* kVariantNames[] = {"dec", "enc", "sim"};
constexpr const char* kBetaNames[] = {"norm", "closed_form"};
static_assert(std::size(kModeNames) == kLatticeModeCount);
static_assert(std::size(kVariantNames) == kLatticeVariantCount);
static_assert(std::size(kBetaNames) == kLatticeBetaCount);

template <class E, size_t N>
std::optional<E> fromName(const char* const (&names)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int j = 0; j < n; ++j) s += a[j] * b[j];
  return s;
}

double norm(const double* a, int n) { return std::sqrt(dot(a, a, n)); }

// ‖s‖ guarded by ε (§1.5); `small` when sᵀs < ε² (NaN is not small: it propagates).
struct SlotNorm {
  double n2 = 0, n = 0;
  bool small = false;
};
SlotNorm slotNorm(const double* s, int d, double eps) {
  SlotNorm r;
  r.n2 = dot(s, s, d);
  r.small = r.n2 < eps * eps;
  r.n = std::sqrt(std::max(r.n2, eps * eps));
  return r;
}

// S k (d), and φ(S) k when `normalised`.
Vector combine(const LatticeSlots& S, const Vector& k, bool normalised, double eps) {
  Vector out(S.d, 0.0);
  for (int i = 0; i < S.m; ++i) {
    const double* s = S.slot(i);
    const double w = normalised ? k[i] / slotNorm(s, S.d, eps).n : k[i];
    for (int j = 0; j < S.d; ++j) out[j] += w * s[j];
  }
  return out;
}

// ENC's error e_i = φ_iᵀ v − k_i (m).
Vector encError(const LatticeSlots& S, const LatticeToken& tok, double eps) {
  Vector e(S.m);
  for (int i = 0; i < S.m; ++i) {
    const double* s = S.slot(i);
    e[i] = dot(s, tok.v.data(), S.d) / slotNorm(s, S.d, eps).n - tok.k[i];
  }
  return e;
}

Vector minus(const Vector& a, const Vector& b) {
  Vector r(a.size());
  for (size_t j = 0; j < a.size(); ++j) r[j] = a[j] - b[j];
  return r;
}

double squaredNorm(const Vector& a) { return dot(a.data(), a.data(), static_cast<int>(a.size())); }

// φ(z) − v for output_normalised (z guarded like a slot).
Vector outputNormalisedError(const Vector& z, const Vector& v, double eps) {
  const double n = slotNorm(z.data(), static_cast<int>(z.size()), eps).n;
  Vector e(z.size());
  for (size_t j = 0; j < z.size(); ++j) e[j] = z[j] / n - v[j];
  return e;
}

// The incoming vector, the per-slot coefficient and the forget factor the update uses:
// Δs_i = α_i · (P(s_i) h in the OSR forms, h otherwise), s̃_i = μ s_i + Δs_i.
struct Drive {
  Vector h, alpha, error;
  double mu = 1;
};

Drive orthogonalDrive(const LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt) {
  Drive dr;
  dr.mu = tok.mu;
  Vector c;
  switch (opt.variant) {
    case LatticeVariant::Dec:
      dr.error = minus(combine(S, tok.k, true, opt.eps), tok.v);
      dr.h = dr.error;
      c = tok.k;
      break;
    case LatticeVariant::Enc:
      dr.error = encError(S, tok, opt.eps);
      dr.h = tok.v;
      c = dr.error;
      break;
    case LatticeVariant::Sim:
      dr.h = tok.v;
      for (double& x : dr.h) x = -x;
      c = tok.k;
      break;
  }
  dr.alpha.resize(S.m);
  for (int i = 0; i < S.m; ++i) {
    const SlotNorm sn = slotNorm(S.slot(i), S.d, opt.eps);
    // α = −γ c_i / ‖s_i‖; a (near-)zero slot is not divided by (§1.5).
    dr.alpha[i] = sn.small ? -tok.gamma * c[i] : -tok.gamma * c[i] / sn.n;
  }
  return dr;
}

Drive comparisonDrive(const LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt) {
  Drive dr;
  const Vector sk = combine(S, tok.k, false, opt.eps);
  dr.alpha = tok.k;
  switch (opt.mode) {
    case LatticeMode::LinearAttention:
    case LatticeMode::Mamba2:
      dr.h = tok.v;
      dr.mu = opt.mode == LatticeMode::Mamba2 ? tok.mu : 1.0;
      return dr;
    case LatticeMode::Delta:
    case LatticeMode::GatedDeltaNet: {
      // Column i of μ S (I − γ k kᵀ) + γ v kᵀ is μ s_i + γ k_i (v − μ S k).
      dr.mu = opt.mode == LatticeMode::GatedDeltaNet ? tok.mu : 1.0;
      dr.error = minus(sk, tok.v);
      dr.h.resize(S.d);
      for (int j = 0; j < S.d; ++j) dr.h[j] = tok.v[j] - dr.mu * sk[j];
      for (double& a : dr.alpha) a *= tok.gamma;
      return dr;
    }
    case LatticeMode::OutputNormalised: {
      // Column i of S − γ (P(z) e / ‖z‖) kᵀ is s_i − γ k_i · P(z) e / ‖z‖.
      dr.error = outputNormalisedError(sk, tok.v, opt.eps);
      const SlotNorm zn = slotNorm(sk.data(), S.d, opt.eps);
      dr.h = dr.error;
      if (!zn.small) {
        const double along = dot(sk.data(), dr.error.data(), S.d) / zn.n2;
        for (int j = 0; j < S.d; ++j) dr.h[j] = (dr.error[j] - along * sk[j]) / zn.n;
      }
      for (double& a : dr.alpha) a *= -tok.gamma;
      return dr;
    }
    default:
      throw Error(std::string("lattice: no comparison drive for mode ") +
                  latticeModeName(opt.mode));
  }
}

double softThreshold(double x, double tau) {
  const double mag = std::max(std::abs(x) - tau, 0.0);
  return x < 0 ? -mag : (x > 0 ? mag : x);  // x itself keeps NaN and ±0
}

}  // namespace

const char* latticeModeName(LatticeMode mode) { return kModeNames[static_cast<int>(mode)]; }
std::optional<LatticeMode> latticeModeFromName(std::string_view name) {
  return fromName<LatticeMode>(kModeNames, name);
}
const char* latticeVariantName(LatticeVariant variant) {
  return kVariantNames[static_cast<int>(variant)];
}
std::optional<LatticeVariant> latticeVariantFromName(std::string_view name) {
  return fromName<LatticeVariant>(kVariantNames, name);
}
const char* latticeBetaName(LatticeBeta beta) { return kBetaNames[static_cast<int>(beta)]; }
std::optional<LatticeBeta> latticeBetaFromName(std::string_view name) {
  return fromName<LatticeBeta>(kBetaNames, name);
}

bool latticeIsOrthogonal(LatticeMode mode) {
  return mode == LatticeMode::Nosr || mode == LatticeMode::Osr || mode == LatticeMode::L1;
}

LatticeSlots identitySlots(int d, int m) {
  LatticeSlots S{d, m, Vector(static_cast<size_t>(d) * m, 0.0)};
  for (int i = 0; i < std::min(d, m); ++i) S.slot(i)[i] = 1;
  return S;
}

LatticeSlots randomOrthonormalSlots(int d, int m, Rng& rng) {
  LatticeSlots S{d, m, Vector(static_cast<size_t>(d) * m, 0.0)};
  for (int i = 0; i < m; ++i) {
    double* s = S.slot(i);
    double n = 0;
    while (n < 1e-6) {  // a Gaussian draw this short (or dependent) is vanishingly rare
      for (int j = 0; j < d; ++j) s[j] = rng.normal();
      // Gram–Schmidt against the earlier columns, twice for accuracy (R's diagonal > 0).
      for (int pass = 0; pass < 2 && i < d; ++pass)
        for (int p = 0; p < i; ++p) {
          const double c = dot(S.slot(p), s, d);
          for (int j = 0; j < d; ++j) s[j] -= c * S.slot(p)[j];
        }
      n = norm(s, d);
    }
    for (int j = 0; j < d; ++j) s[j] /= n;
  }
  return S;
}

double latticeLoss(const LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt) {
  switch (opt.mode) {
    case LatticeMode::Nosr:
    case LatticeMode::Osr:
    case LatticeMode::L1:
      switch (opt.variant) {
        case LatticeVariant::Dec:
          return squaredNorm(minus(combine(S, tok.k, true, opt.eps), tok.v));
        case LatticeVariant::Enc:
          return squaredNorm(encError(S, tok, opt.eps));
        case LatticeVariant::Sim: {
          const Vector e = encError(S, LatticeToken{Vector(S.m, 0.0), tok.v, {}, 0, 0}, opt.eps);
          return -dot(e.data(), tok.k.data(), S.m);  // −⟨φ(S)ᵀv, k⟩
        }
      }
      break;
    case LatticeMode::Delta:
    case LatticeMode::GatedDeltaNet:
      return squaredNorm(minus(combine(S, tok.k, false, opt.eps), tok.v));
    case LatticeMode::OutputNormalised:
      return squaredNorm(outputNormalisedError(combine(S, tok.k, false, opt.eps), tok.v, opt.eps));
    case LatticeMode::LinearAttention:
    case LatticeMode::Mamba2: {
      const Vector sk = combine(S, tok.k, false, opt.eps);
      return -dot(sk.data(), tok.v.data(), S.d);
    }
  }
  return 0;
}

LatticeStepOut latticeStep(LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt) {
  const int d = S.d, m = S.m;
  const bool orthogonal = latticeIsOrthogonal(opt.mode);
  LatticeStepOut out;
  out.lossBefore = latticeLoss(S, tok, opt);
  // Every slot's drive comes from S_{t−1}, so the slots can then be updated in place.
  Drive dr = orthogonal ? orthogonalDrive(S, tok, opt) : comparisonDrive(S, tok, opt);
  const double hNorm = norm(dr.h.data(), d);
  const auto md = static_cast<size_t>(m) * d;
  out.parallel.assign(md, 0.0);
  out.orthogonal.assign(md, 0.0);
  out.delta.assign(md, 0.0);
  for (Vector* v : {&out.beta, &out.theta, &out.cosIn, &out.perpFrac, &out.preNorm, &out.guarded})
    v->assign(m, 0.0);
  Vector tilde(d);
  for (int i = 0; i < m; ++i) {
    double* s = S.slot(i);
    const SlotNorm sn = slotNorm(s, d, opt.eps);
    double* par = out.parallel.data() + static_cast<size_t>(i) * d;
    double* perp = out.orthogonal.data() + static_cast<size_t>(i) * d;
    double* ds = out.delta.data() + static_cast<size_t>(i) * d;
    const double g = dot(s, dr.h.data(), d);
    // P(s) h = h − (sᵀh / sᵀs) s; P = I for a (near-)zero slot (§1.5).
    const double along = sn.small ? 0.0 : g / sn.n2;
    for (int j = 0; j < d; ++j) {
      par[j] = along * s[j];
      perp[j] = dr.h[j] - par[j];
    }
    out.guarded[i] = sn.small ? 1 : 0;
    if (hNorm > 0) {
      out.cosIn[i] = sn.small ? 0.0 : g / (sn.n * hNorm);
      out.perpFrac[i] = norm(perp, d) / hNorm;
    }
    const double* written = orthogonal ? perp : dr.h.data();
    for (int j = 0; j < d; ++j) {
      ds[j] = dr.alpha[i] * written[j];
      tilde[j] = dr.mu * s[j] + ds[j];
    }
    out.preNorm[i] = norm(tilde.data(), d);
    out.beta[i] = 1;
    if (opt.mode == LatticeMode::Nosr) {
      if (out.preNorm[i] < opt.eps) {
        out.guarded[i] = 1;  // s̃ = 0 (μ = 0 and no write): nothing to normalise
      } else {
        out.beta[i] = opt.beta == LatticeBeta::Norm
                          ? 1 / out.preNorm[i]
                          : 1 / std::sqrt(dr.mu * dr.mu + norm(ds, d) * norm(ds, d));
        for (double& x : tilde) x *= out.beta[i];
      }
    } else if (opt.mode == LatticeMode::L1) {
      for (double& x : tilde) x = softThreshold(x, tok.gamma * opt.lambda);
    }
    // θ: the angle from s_{i,t−1} to s_{i,t} (undefined, 0, from a zero slot).
    if (!sn.small) {
      const double a = dot(tilde.data(), s, d) / sn.n;
      double p2 = 0;
      for (int j = 0; j < d; ++j) {
        const double r = tilde[j] - a * s[j] / sn.n;
        p2 += r * r;
      }
      out.theta[i] = std::atan2(std::sqrt(p2), a);
    }
    std::copy(tilde.begin(), tilde.end(), s);
  }
  out.y = combine(S, tok.q, false, opt.eps);
  out.incoming = std::move(dr.h);
  out.error = std::move(dr.error);
  out.writeStrength = std::move(dr.alpha);
  out.lossAfter = latticeLoss(S, tok, opt);
  return out;
}

Sequence latticeRecurrence(LatticeSlots S, const std::vector<LatticeToken>& tokens,
                           const LatticeOptions& opt, int chunk, std::vector<LatticeStepOut>* steps,
                           std::vector<LatticeSlots>* slots) {
  if (chunk < 1) throw Error("lattice: chunk must be at least 1, got " + std::to_string(chunk));
  if (chunk > 1 && opt.mode != LatticeMode::Nosr && opt.mode != LatticeMode::Osr)
    throw Error(std::string("lattice: the chunked approximation needs mode nosr or osr, not ") +
                latticeModeName(opt.mode));
  Sequence ys;
  ys.reserve(tokens.size());
  auto keep = [&](LatticeStepOut&& out, const LatticeSlots& now) {
    ys.push_back(out.y);
    if (steps) steps->push_back(std::move(out));
    if (slots) slots->push_back(now);
  };
  if (chunk == 1) {
    for (const LatticeToken& tok : tokens) {
      LatticeStepOut out = latticeStep(S, tok, opt);
      keep(std::move(out), S);
    }
    return ys;
  }
  // Chunked (§1.7, [E], approximate): every step of the chunk sees the frozen S_{t0}.
  LatticeOptions raw = opt;
  raw.mode = LatticeMode::Osr;  // s̃ = μ s + Δs, unnormalised
  for (size_t t0 = 0; t0 < tokens.size(); t0 += static_cast<size_t>(chunk)) {
    const LatticeSlots frozen = S;
    LatticeSlots sum = frozen;  // S_{t0} + Σ (s̃_τ − S_{t0})
    const size_t end = std::min(tokens.size(), t0 + static_cast<size_t>(chunk));
    for (size_t t = t0; t < end; ++t) {
      LatticeSlots work = frozen;
      LatticeStepOut out = latticeStep(work, tokens[t], raw);
      for (size_t j = 0; j < sum.data.size(); ++j) sum.data[j] += work.data[j] - frozen.data[j];
      S = sum;
      for (int i = 0; i < S.m && opt.mode == LatticeMode::Nosr; ++i) {
        const double n = norm(S.slot(i), S.d);
        out.beta[i] = 1;
        if (n < opt.eps) continue;
        out.beta[i] = 1 / n;
        for (int j = 0; j < S.d; ++j) S.slot(i)[j] /= n;
      }
      out.y = combine(S, tokens[t].q, false, opt.eps);
      out.lossAfter = latticeLoss(S, tokens[t], opt);
      keep(std::move(out), S);
    }
  }
  return ys;
}

}  // namespace lsrl::seed_models
