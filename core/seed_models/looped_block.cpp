#include "core/seed_models/looped_block.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

double activate(LoopedActivation a, double u) {
  if (a == LoopedActivation::ReLU) return u > 0 ? u : (std::isnan(u) ? u : 0.0);
  return 0.5 * u * (1 + std::erf(u / std::numbers::sqrt2));
}

// α ⊙ x / RMS(x), or α ⊙ x without a norm.
Vector normed(const Vector& x, const Vector& alpha, LoopedNorm norm, double eps) {
  double scale = 1;
  if (norm == LoopedNorm::RMS) {
    double ss = 0;
    for (const double v : x) ss += v * v;
    scale = 1 / std::sqrt(ss / static_cast<double>(x.size()) + eps);
  }
  Vector y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = alpha[i] * x[i] * scale;
  return y;
}

// Multi-head attention of queries/keys from z and values from zv (the same rows unless
// baselineCompat); probabilities appended to `probs` when given.
Sequence attention(const Sequence& z, const Sequence& zv, const LoopedBlockWeights& w,
                   const LoopedBlockOptions& opt, std::vector<double>* probs) {
  const size_t N = z.size(), s = sz(opt.headDim);
  Sequence q, k, v;
  for (size_t n = 0; n < N; ++n) {
    q.push_back(w.q.apply(z[n]));
    k.push_back(w.k.apply(z[n]));
    v.push_back(w.v.apply(zv[n]));
  }
  const double scale = opt.scaleRsqrtS ? 1 / std::sqrt(static_cast<double>(s)) : 1.0;
  Sequence heads(N, Vector(sz(opt.heads) * s, 0.0));
  if (probs) probs->assign(sz(opt.heads) * N * N, 0.0);
  for (size_t h = 0; h < sz(opt.heads); ++h) {
    for (size_t n = 0; n < N; ++n) {
      const size_t keys = opt.causal ? n + 1 : N;
      std::vector<double> scores(keys);
      for (size_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (size_t c = h * s; c < (h + 1) * s; ++c) dot += q[n][c] * k[j][c];
        scores[j] = dot * scale;
      }
      const std::vector<double> p = attentionRow(scores, opt.scoring, opt.lambda);
      for (size_t j = 0; j < keys; ++j) {
        if (probs) (*probs)[(h * N + n) * N + j] = p[j];
        if (p[j] == 0) continue;  // keeps a masked-out or unselected NaN value out
        for (size_t c = h * s; c < (h + 1) * s; ++c) heads[n][c] += p[j] * v[j][c];
      }
    }
  }
  Sequence out;
  for (const Vector& o : heads) out.push_back(w.o.apply(o));
  return out;
}

Sequence gated(const Sequence& branch, const Vector& gamma) {
  Sequence out = branch;
  for (Vector& r : out)
    for (size_t i = 0; i < r.size(); ++i) r[i] *= gamma[i];
  return out;
}

Sequence plus(const Sequence& a, const Sequence& b) {
  Sequence out = a;
  for (size_t n = 0; n < out.size(); ++n)
    for (size_t i = 0; i < out[n].size(); ++i) out[n][i] += b[n][i];
  return out;
}

// W·diag(inScale) and diag(outScale)·W, b ⊙ outScale (an empty scale: unchanged).
Affine scaled(Affine a, const Vector& inScale, const Vector& outScale) {
  for (size_t r = 0; r < sz(a.out); ++r)
    for (size_t c = 0; c < sz(a.in); ++c) {
      double& x = a.w[r * sz(a.in) + c];
      if (!inScale.empty()) x *= inScale[c];
      if (!outScale.empty()) x *= outScale[r];
    }
  if (!outScale.empty())
    for (size_t r = 0; r < a.b.size(); ++r) a.b[r] *= outScale[r];
  return a;
}

}  // namespace

Vector Affine::apply(const Vector& x) const {
  Vector y(sz(out));
  for (size_t r = 0; r < sz(out); ++r) {
    double s = b.empty() ? 0.0 : b[r];
    for (size_t c = 0; c < sz(in); ++c) s += w[r * sz(in) + c] * x[c];
    y[r] = s;
  }
  return y;
}

Affine Affine::fromTensors(const Tensor& weight, const Tensor* bias) {
  Affine a;
  a.out = static_cast<int>(weight.shape.at(0));
  a.in = static_cast<int>(weight.shape.at(1));
  a.w = weight.data;
  if (bias) a.b = bias->data;
  return a;
}

const char* loopedScoringName(LoopedScoring s) {
  return s == LoopedScoring::Softmax ? "softmax" : "hardmax";
}
std::optional<LoopedScoring> loopedScoringFromName(std::string_view name) {
  if (name == "softmax") return LoopedScoring::Softmax;
  if (name == "hardmax") return LoopedScoring::Hardmax;
  return std::nullopt;
}
const char* loopedActivationName(LoopedActivation a) {
  return a == LoopedActivation::GELU ? "gelu" : "relu";
}
std::optional<LoopedActivation> loopedActivationFromName(std::string_view name) {
  if (name == "gelu") return LoopedActivation::GELU;
  if (name == "relu") return LoopedActivation::ReLU;
  return std::nullopt;
}
const char* loopedNormName(LoopedNorm n) { return n == LoopedNorm::RMS ? "rms" : "none"; }
std::optional<LoopedNorm> loopedNormFromName(std::string_view name) {
  if (name == "rms") return LoopedNorm::RMS;
  if (name == "none") return LoopedNorm::None;
  return std::nullopt;
}

Modulation Modulation::identity(int d) {
  const Vector ones(sz(d), 1.0);
  return {ones, ones, ones, ones};
}

std::vector<double> attentionRow(const std::vector<double>& scores, LoopedScoring scoring,
                                 double lambda) {
  const size_t K = scores.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::any_of(scores.begin(), scores.end(), [](double x) { return std::isnan(x); }))
    return std::vector<double>(K, nan);
  std::vector<double> p(K, 0.0);
  if (K == 0) return p;
  const double mx = *std::max_element(scores.begin(), scores.end());
  if (scoring == LoopedScoring::Hardmax) {
    const double winners = static_cast<double>(std::count(scores.begin(), scores.end(), mx));
    for (size_t j = 0; j < K; ++j) p[j] = scores[j] == mx ? 1 / winners : 0.0;
    return p;
  }
  double total = 0;
  for (size_t j = 0; j < K; ++j) total += p[j] = std::exp(lambda * (scores[j] - mx));
  for (double& x : p) x /= total;  // an infinite score gives NaN (∞ − ∞): it propagates
  return p;
}

Sequence loopedBlock(const Sequence& x, const LoopedBlockWeights& w, const LoopedBlockOptions& opt,
                     const Modulation& mod, LoopedBlockRecord* record) {
  const int d = w.o.out;
  requireWidth("looped block", x, d);
  Sequence z1, z2;
  for (const Vector& r : x) z1.push_back(normed(r, mod.alpha1, opt.norm, opt.rmsEps));
  const Sequence attn =
      gated(attention(z1, opt.baselineCompat ? x : z1, w, opt, record ? &record->probs : nullptr),
            mod.gamma1);
  const Sequence mid = plus(x, attn);
  for (const Vector& r : mid)
    z2.push_back(opt.baselineCompat ? r : normed(r, mod.alpha2, opt.norm, opt.rmsEps));
  Sequence mlp;
  for (const Vector& r : z2) {
    Vector h = w.fc1.apply(r);
    for (double& u : h) u = activate(opt.activation, u);
    mlp.push_back(w.fc2.apply(h));
  }
  mlp = gated(mlp, mod.gamma2);
  Sequence out = plus(mid, mlp);
  if (record) {
    record->mid = mid;
    record->attnBranch = attn;
    record->mlpBranch = std::move(mlp);
  }
  return out;
}

LoopedBlockWeights foldModulation(const LoopedBlockWeights& w, const Modulation& mod) {
  return {scaled(w.q, mod.alpha1, {}),   scaled(w.k, mod.alpha1, {}),
          scaled(w.v, mod.alpha1, {}),   scaled(w.o, {}, mod.gamma1),
          scaled(w.fc1, mod.alpha2, {}), scaled(w.fc2, {}, mod.gamma2)};
}

}  // namespace lsrl::seed_models
