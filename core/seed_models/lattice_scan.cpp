#include "core/seed_models/lattice_scan.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace lsrl::seed_models {

// A named namespace, not an anonymous one: the unity build merges this unit with
// lattice_step.cpp, whose anonymous helpers (dot, norm) would clash.
namespace lattice_scan_impl {

// Eight partial sums: the compiler vectorises them without reassociating (no -ffast-math),
// where a single running sum stays scalar. Inlined: the calls cost as much as the sums at
// d = 32.
template <class T>
[[gnu::always_inline]] inline T dot(const T* a, const T* b, int n) {
  T acc[8] = {};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) acc[l] += a[j + l] * b[j + l];
  T tail = 0;
  for (; j < n; ++j) tail += a[j] * b[j];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

template <class T>
[[gnu::always_inline]] inline void axpy(T a, const T* x, T* y, int n) {
  for (int j = 0; j < n; ++j) y[j] += a * x[j];
}

// One head's update, as the twin's `_drive` and `step` (lattice.py) compute it. advance()
// keeps what the backward needs (the drive, w = P(s) h, U = μ s + Δs, β), so backward()
// recomputes a token from S_{t−1} alone. Loops are either element-wise or a dot: a
// reduction inside an element-wise loop keeps the whole loop scalar.
template <class T>
class HeadStep {
 public:
  HeadStep(int m, int d, const LatticeOptions& opt)
      : m_(m),
        d_(d),
        mode_(opt.mode),
        variant_(opt.variant),
        closedForm_(opt.beta == LatticeBeta::ClosedForm),
        orthogonal_(latticeIsOrthogonal(opt.mode)),
        normalise_(opt.mode == LatticeMode::Nosr),
        eps_(static_cast<T>(opt.eps)),
        e2_(static_cast<T>(opt.eps * opt.eps)) {
    for (auto* v : {&n2_, &n_, &alpha_, &c_, &g_, &along_, &beta_, &sv_, &dalpha_, &dn_, &dn2_})
      v->assign(static_cast<size_t>(m), 0);
    for (auto* v : {&small_, &tiny_}) v->assign(static_cast<size_t>(m), 0);
    for (auto* v : {&h_, &sk_, &dh_, &dsk_, &row_, &du_, &dds_})
      v->assign(static_cast<size_t>(std::max(m, d)), 0);
    U_.assign(static_cast<size_t>(m) * d, 0);
    W_.assign(static_cast<size_t>(m) * d, 0);
  }

  // S_{t−1} → S_t (`out`, m·d, not aliasing S).
  void advance(const T* S, const T* k, const T* v, T gamma, T mu, T* out) {
    drive(S, k, v, gamma, mu);
    const int d = d_;
    for (int i = 0; i < m_; ++i) {
      const size_t off = static_cast<size_t>(i) * d;
      const T* s = S + off;
      T* u = U_.data() + off;
      const T* w = written(i);
      if (orthogonal_) {
        // P(s) h = h − (sᵀh / sᵀs) s, P = I for a (near-)zero slot.
        T* wi = W_.data() + off;
        g_[i] = dot(s, h_.data(), d);
        along_[i] = small_[i] ? T(0) : g_[i] / n2_[i];
        for (int j = 0; j < d; ++j) wi[j] = h_[j] - along_[i] * s[j];
      }
      const T a = alpha_[i];
      for (int j = 0; j < d; ++j) u[j] = mu_ * s[j] + a * w[j];
      beta_[i] = 1;
      tiny_[i] = 0;
      if (normalise_) {
        const T pre = std::sqrt(dot(u, u, d));
        tiny_[i] = pre < eps_;  // s̃ = 0: nothing to normalise
        if (!tiny_[i])
          beta_[i] = closedForm_ ? 1 / std::sqrt(mu_ * mu_ + a * a * dot(w, w, d)) : 1 / pre;
      }
      T* o = out + off;
      for (int j = 0; j < d; ++j) o[j] = beta_[i] * u[j];
    }
  }

  // y = Σ_i q_i s_{i,t}.
  void read(const T* St, const T* q, T* y) const {
    std::fill(y, y + d_, T(0));
    for (int i = 0; i < m_; ++i) axpy(q[i], St + static_cast<size_t>(i) * d_, y, d_);
  }

  // One token backwards: G = ∂L/∂S_t in, dS = ∂L/∂S_{t−1} out (not aliasing G); the token's
  // gradients written to dk (m), dv (d), dq (m), *dgamma, *dmu. `St` is scratch (m·d).
  void backward(const T* S, const T* k, const T* v, const T* q, T gamma, T mu, const T* dy,
                const T* G, T* dS, T* St, T* dk, T* dv, T* dq, T* dgamma, T* dmu) {
    advance(S, k, v, gamma, mu, St);
    const int d = d_;
    std::fill(dh_.begin(), dh_.begin() + d, T(0));
    T dmuUsed = 0;
    for (int i = 0; i < m_; ++i) {
      const size_t off = static_cast<size_t>(i) * d;
      const T *s = S + off, *u = U_.data() + off, *w = written(i);
      const T a = alpha_[i];
      T* ds = dS + off;
      dq[i] = dot(St + off, dy, d);
      T* dt = row_.data();  // ∂L/∂s_{i,t}
      for (int j = 0; j < d; ++j) dt[j] = G[off + j] + q[i] * dy[j];
      // β: s_{i,t} = β U_i, β = 1/‖U_i‖ or (μ² + ‖Δs_i‖²)^{−1/2}; 1 (a constant) if tiny.
      const T* du = dt;
      T ddsScale = 0;  // the closed form's ∂L/∂Δs_i beyond ∂L/∂U_i, as a multiple of Δs_i
      if (normalise_ && !tiny_[i]) {
        const T b = beta_[i], b3 = b * b * b;
        const T dbeta = dot(dt, u, d);
        T* duw = du_.data();
        if (closedForm_) {
          for (int j = 0; j < d; ++j) duw[j] = b * dt[j];
          const T dden2 = -T(0.5) * dbeta * b3;
          dmuUsed += 2 * mu_ * dden2;
          ddsScale = 2 * dden2;
        } else {
          const T c = -dbeta * b3;
          for (int j = 0; j < d; ++j) duw[j] = b * dt[j] + c * u[j];
        }
        du = duw;
      }
      // U_i = μ s_i + Δs_i, Δs_i = α_i w_i.
      dmuUsed += dot(du, s, d);
      const T* dds = du;
      if (ddsScale != 0) {
        T* ddsw = dds_.data();
        const T c = ddsScale * a;
        for (int j = 0; j < d; ++j) ddsw[j] = du[j] + c * w[j];
        dds = ddsw;
      }
      dalpha_[i] = dot(dds, w, d);
      // ∂L/∂w = α ∂L/∂Δs; w = h − along·s (orthogonal forms) or h.
      T dg = 0, dAlong = 0;
      dn2_[i] = 0;  // ∂L/∂(sᵀs) through `along`; the drive adds its own
      dn_[i] = 0;
      if (orthogonal_) {
        dAlong = -a * dot(dds, s, d);
        if (!small_[i]) {
          dg = dAlong / n2_[i];
          dn2_[i] = -dAlong * g_[i] / (n2_[i] * n2_[i]);
        }
      }
      const T cs = -along_[i] * a;  // along is 0 outside the orthogonal forms
      for (int j = 0; j < d; ++j) {
        ds[j] = mu_ * du[j] + cs * dds[j] + dg * h_[j];
        dh_[j] += a * dds[j] + dg * s[j];
      }
    }
    T dgam = 0, dmuOut = 0;
    if (orthogonal_) {
      driveBackOrthogonal(S, k, v, gamma, dS, dk, dv, dgam);
      dmuOut = dmuUsed;
    } else {
      driveBackComparison(S, k, gamma, dmuUsed, dS, dk, dv, dgam, dmuOut);
    }
    if (dgamma) *dgamma = dgam;
    if (dmu) *dmu = dmuOut;
  }

 private:
  // The vector slot i's write is along: P(s_i) h (kept by advance) or h.
  const T* written(int i) const {
    return orthogonal_ ? W_.data() + static_cast<size_t>(i) * d_ : h_.data();
  }

  // h, α, μ used (and the dec/enc error, S k) from S_{t−1}: the twin's `_drive`.
  void drive(const T* S, const T* k, const T* v, T gamma, T mu) {
    const int m = m_, d = d_;
    auto slot = [&](int i) { return S + static_cast<size_t>(i) * d; };
    if (orthogonal_) {
      for (int i = 0; i < m; ++i) {
        n2_[i] = dot(slot(i), slot(i), d);
        small_[i] = n2_[i] < e2_;
        n_[i] = std::sqrt(std::max(n2_[i], e2_));
      }
      switch (variant_) {
        case LatticeVariant::Dec:  // e = φ(S) k − v, h = e, c = k
          std::fill(h_.begin(), h_.begin() + d, T(0));
          for (int i = 0; i < m; ++i) axpy(k[i] / n_[i], slot(i), h_.data(), d);
          for (int j = 0; j < d; ++j) h_[j] -= v[j];
          std::copy(k, k + m, c_.begin());
          break;
        case LatticeVariant::Enc:  // e = φ(S)ᵀ v − k, h = v, c = e
          for (int i = 0; i < m; ++i) {
            sv_[i] = dot(slot(i), v, d);
            c_[i] = sv_[i] / n_[i] - k[i];
          }
          std::copy(v, v + d, h_.begin());
          break;
        case LatticeVariant::Sim:  // h = −v, c = k
          for (int j = 0; j < d; ++j) h_[j] = -v[j];
          std::copy(k, k + m, c_.begin());
          break;
      }
      for (int i = 0; i < m; ++i) {
        const T a = -gamma * c_[i];
        alpha_[i] = small_[i] ? a : a / n_[i];  // a (near-)zero slot is not divided by
      }
      mu_ = mu;
      return;
    }
    std::fill(sk_.begin(), sk_.begin() + d, T(0));
    for (int i = 0; i < m; ++i) axpy(k[i], slot(i), sk_.data(), d);
    switch (mode_) {
      case LatticeMode::LinearAttention:
      case LatticeMode::Mamba2:
        mu_ = mode_ == LatticeMode::Mamba2 ? mu : T(1);
        std::copy(v, v + d, h_.begin());
        std::copy(k, k + m, alpha_.begin());
        return;
      default:  // delta, gated_deltanet: column i is μ s_i + γ k_i (v − μ S k)
        mu_ = mode_ == LatticeMode::GatedDeltaNet ? mu : T(1);
        for (int j = 0; j < d; ++j) h_[j] = v[j] - mu_ * sk_[j];
        for (int i = 0; i < m; ++i) alpha_[i] = gamma * k[i];
        return;
    }
  }

  // The drive's gradients given ∂L/∂h (dh_), ∂L/∂α (dalpha_, overwritten), ∂L/∂n (dn_) and
  // ∂L/∂(sᵀs) (dn2_) so far: adds to dS, writes dk, dv, dgamma.
  void driveBackOrthogonal(const T* S, const T* k, const T* v, T gamma, T* dS, T* dk, T* dv,
                           T& dgam) {
    const int m = m_, d = d_;
    // α_i = a_i / n_i (a_i if small), a_i = −γ c_i.
    std::vector<T>& dc = dalpha_;  // reused in place: ∂L/∂c_i
    for (int i = 0; i < m; ++i) {
      const T a = -gamma * c_[i];
      T da = dalpha_[i];
      if (!small_[i]) {
        da = dalpha_[i] / n_[i];
        dn_[i] -= dalpha_[i] * a / (n_[i] * n_[i]);
      }
      dgam -= da * c_[i];
      dc[i] = -gamma * da;
    }
    if (variant_ == LatticeVariant::Enc)
      std::copy(dh_.begin(), dh_.begin() + d, dv);  // h = v
    else
      for (int j = 0; j < d; ++j) dv[j] = -dh_[j];  // h = e = φ(S) k − v, or −v
    for (int i = 0; i < m; ++i) {
      const T* s = S + static_cast<size_t>(i) * d;
      T* ds = dS + static_cast<size_t>(i) * d;
      const T n = n_[i];
      T coef = 0;  // ∂L/∂s_i's term along `other`
      const T* other = dh_.data();
      switch (variant_) {
        case LatticeVariant::Dec: {  // h = Σ (k_i/n_i) s_i − v, c = k
          const T dkn = dot(s, dh_.data(), d);
          dk[i] = dkn / n + dc[i];
          dn_[i] -= dkn * k[i] / (n * n);
          coef = k[i] / n;
          break;
        }
        case LatticeVariant::Enc:  // c_i = sᵢᵀv / n_i − k_i
          coef = dc[i] / n;
          dn_[i] -= dc[i] * sv_[i] / (n * n);
          other = v;
          axpy(coef, s, dv, d);
          dk[i] = -dc[i];
          break;
        case LatticeVariant::Sim:  // c = k
          dk[i] = dc[i];
          break;
      }
      // n_i = sqrt(max(sᵀs, ε²)): clamp passes no gradient below ε².
      if (!small_[i]) dn2_[i] += dn_[i] / (2 * n);
      const T c2 = 2 * dn2_[i];
      for (int j = 0; j < d; ++j) ds[j] += coef * other[j] + c2 * s[j];
    }
  }

  void driveBackComparison(const T* S, const T* k, T gamma, T dmuUsed, T* dS, T* dk, T* dv, T& dgam,
                           T& dmu) {
    const int m = m_, d = d_;
    std::copy(dh_.begin(), dh_.begin() + d, dv);
    if (mode_ == LatticeMode::LinearAttention || mode_ == LatticeMode::Mamba2) {
      std::copy(dalpha_.begin(), dalpha_.begin() + m, dk);
      dmu = mode_ == LatticeMode::Mamba2 ? dmuUsed : T(0);
      return;
    }
    // h = v − μ S k, α = γ k.
    T* dsk = dsk_.data();
    for (int j = 0; j < d; ++j) dsk[j] = -mu_ * dh_[j];
    dmu = mode_ == LatticeMode::GatedDeltaNet ? dmuUsed - dot(dh_.data(), sk_.data(), d) : T(0);
    for (int i = 0; i < m; ++i) {
      const T* s = S + static_cast<size_t>(i) * d;
      dgam += dalpha_[i] * k[i];
      dk[i] = gamma * dalpha_[i] + dot(s, dsk, d);
      axpy(k[i], dsk, dS + static_cast<size_t>(i) * d, d);
    }
  }

  int m_, d_;
  LatticeMode mode_;
  LatticeVariant variant_;
  bool closedForm_, orthogonal_, normalise_;
  T eps_, e2_, mu_ = 1;
  std::vector<T> n2_, n_, alpha_, c_, g_, along_, beta_, sv_, dalpha_, dn_, dn2_;
  std::vector<uint8_t> small_, tiny_;
  std::vector<T> h_, sk_, dh_, dsk_, row_, du_, dds_, U_, W_;
};

void checkScan(const LatticeScanShape& sh, const LatticeOptions& opt) {
  if (!latticeScanSupports(opt))
    throw Error(std::string("lattice scan: mode ") + latticeModeName(opt.mode) +
                " is not fused (the PyTorch loop runs it)");
  if (sh.batch < 0 || sh.tokens < 0 || sh.heads < 0 || sh.m < 1 || sh.d < 1)
    throw Error("lattice scan: bad shape");
}

// Offsets of (b, t, h) in the [B][T][H][w] token arrays and of (b, h) in [B][H][...].
struct Index {
  const LatticeScanShape& sh;
  size_t token(int64_t b, int64_t t, int64_t h, int w) const {
    return static_cast<size_t>((b * sh.tokens + t) * sh.heads + h) * static_cast<size_t>(w);
  }
  size_t head(int64_t b, int64_t h) const { return static_cast<size_t>(b * sh.heads + h); }
};

}  // namespace lattice_scan_impl

bool latticeScanSupports(const LatticeOptions& opt) {
  return opt.mode != LatticeMode::L1 && opt.mode != LatticeMode::OutputNormalised;
}

bool latticeScanUsesGamma(LatticeMode mode) {
  return mode != LatticeMode::LinearAttention && mode != LatticeMode::Mamba2;
}

bool latticeScanUsesMu(LatticeMode mode) {
  return mode == LatticeMode::Nosr || mode == LatticeMode::Osr || mode == LatticeMode::Mamba2 ||
         mode == LatticeMode::GatedDeltaNet;
}

template <class T>
void latticeScanForward(const LatticeScanShape& sh, const LatticeOptions& opt, const T* s0,
                        const LatticeScanInputs<T>& in, T* y, T* states) {
  lattice_scan_impl::checkScan(sh, opt);
  const int m = sh.m, d = sh.d;
  const size_t md = static_cast<size_t>(m) * d;
  const lattice_scan_impl::Index at{sh};
  lattice_scan_impl::HeadStep<T> step(m, d, opt);
  std::vector<T> cur(md), next(md);
  for (int64_t b = 0; b < sh.batch; ++b)
    for (int64_t h = 0; h < sh.heads; ++h) {
      const size_t bh = at.head(b, h);
      std::copy(s0 + bh * md, s0 + (bh + 1) * md, cur.begin());
      for (int64_t t = 0; t < sh.tokens; ++t) {
        if (states)
          std::copy(cur.begin(), cur.end(),
                    states + (bh * static_cast<size_t>(sh.tokens) + static_cast<size_t>(t)) * md);
        const size_t s = at.token(b, t, h, 1);
        step.advance(cur.data(), in.k + at.token(b, t, h, m), in.v + at.token(b, t, h, d),
                     in.gamma[s], in.mu[s], next.data());
        step.read(next.data(), in.q + at.token(b, t, h, m), y + at.token(b, t, h, d));
        std::swap(cur, next);
      }
    }
}

template <class T>
void latticeScanBackward(const LatticeScanShape& sh, const LatticeOptions& opt, const T* states,
                         const LatticeScanInputs<T>& in, const T* dy,
                         const LatticeScanGrads<T>& grads) {
  lattice_scan_impl::checkScan(sh, opt);
  const int m = sh.m, d = sh.d;
  const size_t md = static_cast<size_t>(m) * d;
  const lattice_scan_impl::Index at{sh};
  lattice_scan_impl::HeadStep<T> step(m, d, opt);
  std::vector<T> G(md), dS(md), scratch(md);
  for (int64_t b = 0; b < sh.batch; ++b)
    for (int64_t h = 0; h < sh.heads; ++h) {
      const size_t bh = at.head(b, h);
      std::fill(G.begin(), G.end(), T(0));  // nothing depends on the final state
      for (int64_t t = sh.tokens - 1; t >= 0; --t) {
        const T* S = states + (bh * static_cast<size_t>(sh.tokens) + static_cast<size_t>(t)) * md;
        const size_t s = at.token(b, t, h, 1), km = at.token(b, t, h, m), vd = at.token(b, t, h, d);
        step.backward(S, in.k + km, in.v + vd, in.q + km, in.gamma[s], in.mu[s], dy + vd, G.data(),
                      dS.data(), scratch.data(), grads.k + km, grads.v + vd, grads.q + km,
                      grads.gamma ? grads.gamma + s : nullptr, grads.mu ? grads.mu + s : nullptr);
        std::swap(G, dS);
      }
      std::copy(G.begin(), G.end(), grads.s0 + bh * md);
    }
}

template void latticeScanForward<float>(const LatticeScanShape&, const LatticeOptions&,
                                        const float*, const LatticeScanInputs<float>&, float*,
                                        float*);
template void latticeScanForward<double>(const LatticeScanShape&, const LatticeOptions&,
                                         const double*, const LatticeScanInputs<double>&, double*,
                                         double*);
template void latticeScanBackward<float>(const LatticeScanShape&, const LatticeOptions&,
                                         const float*, const LatticeScanInputs<float>&,
                                         const float*, const LatticeScanGrads<float>&);
template void latticeScanBackward<double>(const LatticeScanShape&, const LatticeOptions&,
                                          const double*, const LatticeScanInputs<double>&,
                                          const double*, const LatticeScanGrads<double>&);

}  // namespace lsrl::seed_models
