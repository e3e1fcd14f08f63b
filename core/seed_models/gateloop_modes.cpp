#include "core/seed_models/gateloop_modes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/seed_models/model_common.h"
#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

// a_n = exp(log a_n) for every token and key dimension.
std::vector<Complex> transitions(const GateLoopInputs& in) {
  std::vector<Complex> a(in.logA.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::exp(in.logA[i]);
  return a;
}

// y_n[c] = Σ_r q_n[r] H_n[r,c] per head, from the states of token n.
void readOut(const GateLoopInputs& in, int n, const Complex* H, Complex* y) {
  const int dh = in.dh;
  const double* q = &in.q[sz(n * in.width())];
  for (int h = 0; h < in.heads; ++h) {
    for (int c = 0; c < dh; ++c) {
      Complex sum = 0;
      for (int r = 0; r < dh; ++r) sum += q[h * dh + r] * H[sz((h * dh + r) * dh + c)];
      y[h * dh + c] = sum;
    }
  }
}

}  // namespace

const char* gateLoopMagnitudeName(GateLoopMagnitude m) {
  return m == GateLoopMagnitude::Sigmoid ? "sigmoid" : "exp_exp";
}

std::optional<GateLoopMagnitude> gateLoopMagnitudeFromName(std::string_view name) {
  if (name == "sigmoid") return GateLoopMagnitude::Sigmoid;
  if (name == "exp_exp") return GateLoopMagnitude::ExpExp;
  return std::nullopt;
}

const char* gateLoopPhaseName(GateLoopPhase p) {
  return p == GateLoopPhase::Identity ? "identity" : "pi_tanh";
}

std::optional<GateLoopPhase> gateLoopPhaseFromName(std::string_view name) {
  if (name == "identity") return GateLoopPhase::Identity;
  if (name == "pi_tanh") return GateLoopPhase::PiTanh;
  return std::nullopt;
}

Complex gateLoopLogTransition(double gammaPre, double thetaPre, GateLoopMagnitude magnitude,
                              GateLoopPhase phase) {
  const double logMag =
      magnitude == GateLoopMagnitude::Sigmoid ? -softplus(-gammaPre) : -std::exp(gammaPre);
  const double angle =
      phase == GateLoopPhase::Identity ? thetaPre : std::numbers::pi * std::tanh(thetaPre);
  // σ(γ) underflows to 0 for γ < −745: keep the log finite, as for a given a = 0.
  return {std::max(logMag, kGateLoopLogZero), angle};
}

Complex gateLoopLogOf(Complex a) {
  if (a == Complex(0)) return {kGateLoopLogZero, 0};
  const Complex l = std::log(a);
  return {std::max(l.real(), kGateLoopLogZero), l.imag()};
}

GateLoopInputs gateLoopInputs(int heads, int dh, int steps) {
  GateLoopInputs in;
  in.heads = heads;
  in.dh = dh;
  in.steps = steps;
  const size_t n = sz(heads) * sz(dh) * sz(steps);
  in.logA.assign(n, Complex(0));
  in.q.assign(n, 0);
  in.k.assign(n, 0);
  in.v.assign(n, 0);
  return in;
}

void checkGateLoopInputs(const GateLoopInputs& in) {
  if (in.heads < 1 || in.dh < 1 || in.steps < 0)
    throw Error("gateloop operator: heads = " + std::to_string(in.heads) +
                ", d_h = " + std::to_string(in.dh) + ", steps = " + std::to_string(in.steps) +
                ": expected heads ≥ 1, d_h ≥ 1, steps ≥ 0");
  const size_t n = sz(in.steps) * sz(in.width());
  requireSize("gateloop operator: logA entries", n, in.logA.size());
  requireSize("gateloop operator: q entries", n, in.q.size());
  requireSize("gateloop operator: k entries", n, in.k.size());
  requireSize("gateloop operator: v entries", n, in.v.size());
  if (!in.h0.empty())
    requireSize("gateloop operator: h0 entries", sz(in.width()) * sz(in.dh), in.h0.size());
}

std::vector<Complex> gateLoopRecurrent(const GateLoopInputs& in, std::vector<Complex>* states) {
  checkGateLoopInputs(in);
  const int P = in.width(), dh = in.dh;
  const std::vector<Complex> a = transitions(in);
  std::vector<Complex> H = in.h0.empty() ? std::vector<Complex>(sz(P) * sz(dh)) : in.h0;
  std::vector<Complex> y(sz(in.steps) * sz(P));
  if (states) states->assign(sz(in.steps) * H.size(), Complex(0));
  for (int n = 0; n < in.steps; ++n) {
    const size_t row = sz(n) * sz(P);
    for (int r = 0; r < P; ++r) {  // r runs over all heads' key rows
      const int head = r / dh;
      for (int c = 0; c < dh; ++c) {
        Complex& h = H[sz(r * dh + c)];
        h = a[row + sz(r)] * h + in.k[row + sz(r)] * in.v[row + sz(head * dh + c)];
      }
    }
    readOut(in, n, H.data(), &y[row]);
    if (states) std::copy(H.begin(), H.end(), states->begin() + static_cast<long>(n * H.size()));
  }
  return y;
}

GateLoopElement gateLoopIdentity(int heads, int dh) {
  return {std::vector<Complex>(sz(heads) * sz(dh), Complex(1)),
          std::vector<Complex>(sz(heads) * sz(dh) * sz(dh), Complex(0))};
}

GateLoopElement gateLoopLeaf(const GateLoopInputs& in, int n) {
  const int P = in.width(), dh = in.dh;
  const size_t row = sz(n) * sz(P);
  GateLoopElement e{std::vector<Complex>(sz(P)), std::vector<Complex>(sz(P) * sz(dh))};
  for (int r = 0; r < P; ++r) {
    e.A[sz(r)] = std::exp(in.logA[row + sz(r)]);
    const int head = r / dh;
    for (int c = 0; c < dh; ++c) {
      Complex b = in.k[row + sz(r)] * in.v[row + sz(head * dh + c)];
      // §2.4 [E]: a non-zero initial state enters the first leaf as diag(a_1) H_0.
      if (n == 0 && !in.h0.empty()) b += e.A[sz(r)] * in.h0[sz(r * dh + c)];
      e.B[sz(r * dh + c)] = b;
    }
  }
  return e;
}

GateLoopElement gateLoopCombine(const GateLoopElement& earlier, const GateLoopElement& later,
                                int dh) {
  GateLoopElement out{std::vector<Complex>(earlier.A.size()), later.B};
  for (size_t r = 0; r < earlier.A.size(); ++r) {
    out.A[r] = later.A[r] * earlier.A[r];
    for (int c = 0; c < dh; ++c)
      out.B[r * sz(dh) + sz(c)] += later.A[r] * earlier.B[r * sz(dh) + sz(c)];
  }
  return out;
}

std::vector<GateLoopElement> gateLoopPrefixScan(std::vector<GateLoopElement> leaves, int dh,
                                                GateLoopScanAlgorithm algorithm) {
  const size_t n = leaves.size();
  if (n == 0) return leaves;
  if (algorithm == GateLoopScanAlgorithm::HillisSteele) {
    for (size_t offset = 1; offset < n; offset *= 2) {
      std::vector<GateLoopElement> next = leaves;
      for (size_t i = offset; i < n; ++i)
        next[i] = gateLoopCombine(leaves[i - offset], leaves[i], dh);
      leaves = std::move(next);
    }
    return leaves;
  }
  // Blelloch: exclusive scan on a power-of-two tree, then one combine with the leaf.
  size_t size = 1;
  while (size < n) size *= 2;
  const GateLoopElement identity{std::vector<Complex>(leaves[0].A.size(), Complex(1)),
                                 std::vector<Complex>(leaves[0].B.size(), Complex(0))};
  std::vector<GateLoopElement> tree = leaves;
  tree.resize(size, identity);
  for (size_t s = 1; s < size; s *= 2)  // up-sweep: node i+2s−1 holds its range's product
    for (size_t i = 0; i < size; i += 2 * s)
      tree[i + 2 * s - 1] = gateLoopCombine(tree[i + s - 1], tree[i + 2 * s - 1], dh);
  tree[size - 1] = identity;
  for (size_t s = size / 2; s >= 1; s /= 2) {  // down-sweep: left keeps order (not commutative)
    for (size_t i = 0; i < size; i += 2 * s) {
      GateLoopElement left = std::move(tree[i + s - 1]);
      tree[i + s - 1] = tree[i + 2 * s - 1];
      tree[i + 2 * s - 1] = gateLoopCombine(tree[i + 2 * s - 1], left, dh);
    }
  }
  for (size_t i = 0; i < n; ++i) leaves[i] = gateLoopCombine(tree[i], leaves[i], dh);
  return leaves;
}

std::vector<Complex> gateLoopScan(const GateLoopInputs& in, GateLoopScanAlgorithm algorithm,
                                  std::vector<Complex>* states) {
  checkGateLoopInputs(in);
  std::vector<GateLoopElement> leaves;
  leaves.reserve(sz(in.steps));
  for (int n = 0; n < in.steps; ++n) leaves.push_back(gateLoopLeaf(in, n));
  const std::vector<GateLoopElement> prefix =
      gateLoopPrefixScan(std::move(leaves), in.dh, algorithm);
  const size_t P = sz(in.width()), stateSize = P * sz(in.dh);
  std::vector<Complex> y(sz(in.steps) * P);
  if (states) states->assign(sz(in.steps) * stateSize, Complex(0));
  for (int n = 0; n < in.steps; ++n) {
    readOut(in, n, prefix[sz(n)].B.data(), &y[sz(n) * P]);
    if (states)
      std::copy(prefix[sz(n)].B.begin(), prefix[sz(n)].B.end(),
                states->begin() + static_cast<long>(sz(n) * stateSize));
  }
  return y;
}

std::vector<Complex> gateLoopPrefixLog(const GateLoopInputs& in) {
  checkGateLoopInputs(in);
  const size_t P = sz(in.width());
  std::vector<Complex> L(in.logA.size());
  for (int n = 0; n < in.steps; ++n)
    for (size_t r = 0; r < P; ++r)
      L[sz(n) * P + r] = in.logA[sz(n) * P + r] + (n > 0 ? L[sz(n - 1) * P + r] : Complex(0));
  return L;
}

namespace {

// The scaled queries and keys of §2.5 as factors of A[n,m] = Σ_r f(n,m,r): in the log
// domain the pair exp(L_n − L_m) is formed per entry; in the naive one q̄ = q ⊙ π and
// k̄ = k ⊘ π are formed once. `decay(n, m, r)` returns Π_{j=m+1}^{n} a_j[r].
struct Surrogate {
  const GateLoopInputs& in;
  GateLoopDomain domain;
  std::vector<Complex> L, pi;

  Surrogate(const GateLoopInputs& inputs, GateLoopDomain d) : in(inputs), domain(d) {
    L = gateLoopPrefixLog(in);
    if (domain == GateLoopDomain::Naive) {
      const std::vector<Complex> a = transitions(in);
      const size_t P = sz(in.width());
      pi = a;
      for (size_t i = P; i < pi.size(); ++i) pi[i] *= pi[i - P];
    }
  }
  size_t at(int n, int r) const { return sz(n) * sz(in.width()) + sz(r); }
  // Σ_r q_n[r] k_m[r] Π_{j=m+1}^{n} a_j[r] over head h's rows.
  Complex score(int h, int n, int m) const {
    Complex sum = 0;
    for (int r = h * in.dh; r < (h + 1) * in.dh; ++r) {
      const double qk = in.q[at(n, r)] * in.k[at(m, r)];
      if (domain == GateLoopDomain::Log)
        sum += qk * std::exp(L[at(n, r)] - L[at(m, r)]);
      else
        sum += (in.q[at(n, r)] * pi[at(n, r)]) * (in.k[at(m, r)] / pi[at(m, r)]);
    }
    return sum;
  }
  // π_n[r] = Π_{j≤n} a_j[r], the weight of H_0's row r in H_n.
  Complex prefix(int n, int r) const {
    return domain == GateLoopDomain::Log ? std::exp(L[at(n, r)]) : pi[at(n, r)];
  }
};

}  // namespace

std::vector<Complex> gateLoopAttention(const GateLoopInputs& in, GateLoopDomain domain,
                                       std::vector<Complex>* scores) {
  checkGateLoopInputs(in);
  const Surrogate s(in, domain);
  const int T = in.steps, dh = in.dh, P = in.width();
  std::vector<Complex> y(sz(T) * sz(P));
  if (scores) scores->assign(sz(in.heads) * sz(T) * sz(T), Complex(0));
  for (int h = 0; h < in.heads; ++h) {
    for (int n = 0; n < T; ++n) {
      Complex* yn = &y[s.at(n, h * dh)];
      for (int m = 0; m <= n; ++m) {
        const Complex A = s.score(h, n, m);
        if (scores) (*scores)[(sz(h) * sz(T) + sz(n)) * sz(T) + sz(m)] = A;
        for (int c = 0; c < dh; ++c) yn[c] += A * in.v[s.at(m, h * dh + c)];
      }
      if (in.h0.empty()) continue;
      for (int r = h * dh; r < (h + 1) * dh; ++r) {
        const Complex w = in.q[s.at(n, r)] * s.prefix(n, r);
        for (int c = 0; c < dh; ++c) yn[c] += w * in.h0[sz(r * dh + c)];
      }
    }
  }
  return y;
}

std::vector<Complex> gateLoopSoftmaxAttention(const GateLoopInputs& in) {
  checkGateLoopInputs(in);
  const Surrogate s(in, GateLoopDomain::Log);
  const int T = in.steps, dh = in.dh, P = in.width();
  std::vector<Complex> y(sz(T) * sz(P));
  std::vector<double> row(sz(T));
  for (int h = 0; h < in.heads; ++h) {
    for (int n = 0; n < T; ++n) {
      double top = -INFINITY;
      for (int m = 0; m <= n; ++m) top = std::max(top, row[sz(m)] = s.score(h, n, m).real());
      double total = 0;
      for (int m = 0; m <= n; ++m) total += (row[sz(m)] = std::exp(row[sz(m)] - top));
      Complex* yn = &y[s.at(n, h * dh)];
      for (int m = 0; m <= n; ++m)
        for (int c = 0; c < dh; ++c) yn[c] += row[sz(m)] / total * in.v[s.at(m, h * dh + c)];
    }
  }
  return y;
}

const char* gateLoopModeName(GateLoopMode mode) {
  switch (mode) {
    case GateLoopMode::Recurrent:
      return "recurrent";
    case GateLoopMode::Scan:
      return "scan";
    case GateLoopMode::ScanHillisSteele:
      return "scan_hillis_steele";
    case GateLoopMode::Attention:
      return "attention";
    case GateLoopMode::AttentionNaive:
      return "attention_naive";
    case GateLoopMode::Softmax:
      return "softmax";
  }
  return "?";
}

std::optional<GateLoopMode> gateLoopModeFromName(std::string_view name) {
  for (const GateLoopMode m :
       {GateLoopMode::Recurrent, GateLoopMode::Scan, GateLoopMode::ScanHillisSteele,
        GateLoopMode::Attention, GateLoopMode::AttentionNaive, GateLoopMode::Softmax})
    if (name == gateLoopModeName(m)) return m;
  return std::nullopt;
}

std::vector<Complex> gateLoopRun(const GateLoopInputs& in, GateLoopMode mode) {
  switch (mode) {
    case GateLoopMode::Recurrent:
      return gateLoopRecurrent(in);
    case GateLoopMode::Scan:
      return gateLoopScan(in, GateLoopScanAlgorithm::Blelloch);
    case GateLoopMode::ScanHillisSteele:
      return gateLoopScan(in, GateLoopScanAlgorithm::HillisSteele);
    case GateLoopMode::Attention:
      return gateLoopAttention(in, GateLoopDomain::Log);
    case GateLoopMode::AttentionNaive:
      return gateLoopAttention(in, GateLoopDomain::Naive);
    case GateLoopMode::Softmax:
      return gateLoopSoftmaxAttention(in);
  }
  return gateLoopRecurrent(in);
}

}  // namespace lsrl::seed_models
