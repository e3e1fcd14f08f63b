#include "core/seed_models/min_rnn_scan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/seed_models/model_common.h"
#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Blelloch's inclusive scan of `leaves` under the associative `op` (left argument earlier):
// an up-sweep of partial reductions, then a down-sweep that hands every node the
// reduction of all leaves to its left, padded with `identity` to a power of two. A leaf
// only ever reaches the prefixes of later positions.
template <class E, class Op>
std::vector<E> blellochInclusive(const std::vector<E>& leaves, E identity, Op op) {
  size_t n = 1;
  while (n < leaves.size()) n *= 2;
  std::vector<E> x(leaves);
  x.resize(n, identity);
  for (size_t step = 1; step < n; step *= 2)
    for (size_t i = 2 * step - 1; i < n; i += 2 * step) x[i] = op(x[i - step], x[i]);
  x[n - 1] = identity;
  for (size_t step = n / 2; step >= 1; step /= 2) {
    for (size_t i = 2 * step - 1; i < n; i += 2 * step) {
      const E left = x[i - step];
      x[i - step] = x[i];     // the left child's prefix: its parent's
      x[i] = op(x[i], left);  // the right child's: the parent's, then the left subtree
    }
  }
  std::vector<E> out(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) out[i] = op(x[i], leaves[i]);  // exclusive → inclusive
  return out;
}

// Rows of `data` of width `width`: the number of them, or an error naming `what`.
int rowsOf(const std::string& what, const std::vector<double>& data, int width) {
  if (width <= 0) {
    if (!data.empty())
      throw Error(what + ": " + std::to_string(data.size()) + " entries for width " +
                  std::to_string(width));
    return 0;
  }
  if (data.size() % sz(width) != 0)
    throw Error(what + ": " + std::to_string(data.size()) + " entries are not rows of width " +
                std::to_string(width));
  return static_cast<int>(data.size() / sz(width));
}

// The linear-space coefficients a_t = exp(log a_t), b_t = w_t ⊙ h̃_t of a layer.
void coefficients(const MinRnnGates& gates, MinRnnVariant variant, std::vector<double>& a,
                  std::vector<double>& b) {
  checkMinRnnGates(gates);
  const std::vector<double> candidates = minRnnCandidates(gates, variant);
  a.resize(gates.logA.size());
  b.resize(gates.logA.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = std::exp(gates.logA[i]);
    b[i] = std::exp(gates.logW[i]) * candidates[i];
  }
}

void requireStart(const MinRnnGates& gates, const std::vector<double>& h0) {
  requireSize("min-RNN initial state h0", sz(gates.width), h0.size());
}

}  // namespace

double minRnnSigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);  // NaN lands here and stays NaN
  return e / (1 + e);
}

double minRnnSoftplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

double minRnnG(double x) { return x >= 0 ? x + 0.5 : minRnnSigmoid(x); }

double minRnnLogG(double x) { return x >= 0 ? std::log(x + 0.5) : -minRnnSoftplus(-x); }

double logAddExp(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kNan;
  if (x == -kInf) return y;
  if (y == -kInf) return x;
  const double m = std::max(x, y);
  if (m == kInf) return kInf;
  return m + std::log1p(std::exp(-std::abs(x - y)));
}

void checkMinRnnGates(const MinRnnGates& g) {
  if (g.steps < 0 || g.width < 0)
    throw Error("min-RNN gates: negative size (steps " + std::to_string(g.steps) + ", width " +
                std::to_string(g.width) + ")");
  const size_t n = sz(g.steps) * sz(g.width);
  requireSize("min-RNN gates \"logA\"", n, g.logA.size());
  requireSize("min-RNN gates \"logW\"", n, g.logW.size());
  requireSize("min-RNN gates \"candidate\"", n, g.candidate.size());
}

MinRnnGates minRnnGatesWithCandidate(const std::string& cell, const std::vector<double>& candidate,
                                     int width) {
  if (width < 1 || candidate.size() % sz(width) != 0)
    throw Error(cell + " gates: " + std::to_string(candidate.size()) +
                " pre-activations are not rows of width " + std::to_string(width));
  MinRnnGates g;
  g.width = width;
  g.steps = static_cast<int>(candidate.size() / sz(width));
  g.candidate = candidate;
  return g;
}

const char* minRnnVariantName(MinRnnVariant v) {
  return v == MinRnnVariant::Vanilla ? "vanilla" : "log";
}

std::optional<MinRnnVariant> minRnnVariantFromName(std::string_view name) {
  if (name == "vanilla") return MinRnnVariant::Vanilla;
  if (name == "log") return MinRnnVariant::Log;
  return std::nullopt;
}

const char* minRnnModeName(MinRnnMode m) {
  switch (m) {
    case MinRnnMode::Sequential:
      return "sequential";
    case MinRnnMode::Parallel:
      return "parallel";
    case MinRnnMode::LogSpace:
      return "log_space";
  }
  return "?";
}

std::optional<MinRnnMode> minRnnModeFromName(std::string_view name) {
  for (const MinRnnMode m : {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace})
    if (name == minRnnModeName(m)) return m;
  return std::nullopt;
}

std::vector<double> minRnnCandidates(const MinRnnGates& gates, MinRnnVariant variant) {
  std::vector<double> c = gates.candidate;
  if (variant == MinRnnVariant::Log)
    for (double& x : c) x = minRnnG(x);
  return c;
}

std::vector<double> minRnnInitialState(const std::vector<double>& h0, MinRnnVariant variant) {
  std::vector<double> out = h0;
  if (variant == MinRnnVariant::Log)
    for (double& x : out) x = minRnnG(x);
  return out;
}

std::vector<double> minRnnSequential(const MinRnnGates& gates, MinRnnVariant variant,
                                     const std::vector<double>& h0) {
  requireStart(gates, h0);
  std::vector<double> a, b;
  coefficients(gates, variant, a, b);
  return linearScanSequential(a, b, h0);
}

std::vector<double> minRnnParallel(const MinRnnGates& gates, MinRnnVariant variant,
                                   const std::vector<double>& h0) {
  requireStart(gates, h0);
  std::vector<double> a, b;
  coefficients(gates, variant, a, b);
  return linearScanParallel(a, b, h0);
}

std::vector<double> minRnnLogValues(const MinRnnGates& gates, const std::vector<double>& h0) {
  checkMinRnnGates(gates);
  requireStart(gates, h0);
  std::vector<double> out;
  out.reserve(h0.size() + gates.logW.size());
  for (const double x : h0) out.push_back(std::log(x));
  for (size_t i = 0; i < gates.logW.size(); ++i)
    out.push_back(gates.logW[i] + minRnnLogG(gates.candidate[i]));
  return out;
}

std::vector<double> minRnnLogSpace(const MinRnnGates& gates, MinRnnVariant variant,
                                   const std::vector<double>& h0) {
  if (variant != MinRnnVariant::Log)
    throw Error(
        "min-RNN log_space mode: needs the \"log\" variant (a vanilla candidate can be "
        "negative, and its log does not exist)");
  requireStart(gates, h0);
  for (size_t u = 0; u < h0.size(); ++u)
    if (h0[u] <= 0)
      throw Error("min-RNN log_space mode: h0[" + std::to_string(u) +
                  "] = " + std::to_string(h0[u]) + " is not positive (start from g(h0))");
  return logSpaceScan(gates.logA, minRnnLogValues(gates, h0), gates.width);
}

std::vector<double> minRnnRun(const MinRnnGates& gates, MinRnnVariant variant, MinRnnMode mode,
                              const std::vector<double>& h0) {
  switch (mode) {
    case MinRnnMode::Sequential:
      return minRnnSequential(gates, variant, h0);
    case MinRnnMode::Parallel:
      return minRnnParallel(gates, variant, h0);
    case MinRnnMode::LogSpace:
      return minRnnLogSpace(gates, variant, h0);
  }
  throw Error("min-RNN: unknown mode");
}

ScanPair scanCombine(ScanPair earlier, ScanPair later) {
  return {earlier.a * later.a, later.a * earlier.b + later.b};
}

std::vector<double> linearScanSequential(const std::vector<double>& a, const std::vector<double>& b,
                                         const std::vector<double>& h0) {
  requireSize("linear scan: b", a.size(), b.size());
  const int d = static_cast<int>(h0.size());
  const int T = rowsOf("linear scan: a", a, d);
  std::vector<double> h = h0, out(a.size());
  for (size_t t = 0; t < sz(T); ++t) {
    for (size_t u = 0; u < sz(d); ++u) {
      const size_t i = t * sz(d) + u;
      h[u] = a[i] * h[u] + b[i];
      out[i] = h[u];
    }
  }
  return out;
}

std::vector<double> linearScanParallel(const std::vector<double>& a, const std::vector<double>& b,
                                       const std::vector<double>& h0) {
  requireSize("linear scan: b", a.size(), b.size());
  const int d = static_cast<int>(h0.size());
  const int T = rowsOf("linear scan: a", a, d);
  std::vector<double> out(a.size());
  std::vector<ScanPair> leaves(sz(T) + 1);
  for (size_t u = 0; u < sz(d); ++u) {
    leaves[0] = {1, h0[u]};  // b_0 := h_0
    for (size_t t = 0; t < sz(T); ++t) leaves[t + 1] = {a[t * sz(d) + u], b[t * sz(d) + u]};
    const std::vector<ScanPair> prefix = blellochInclusive(leaves, ScanPair{}, scanCombine);
    for (size_t t = 0; t < sz(T); ++t) out[t * sz(d) + u] = prefix[t + 1].b;
  }
  return out;
}

std::vector<double> logSpaceScan(const std::vector<double>& logCoeffs,
                                 const std::vector<double>& logValues, int width,
                                 std::vector<double>* aStar, std::vector<double>* lcse) {
  const int T = rowsOf("log-space scan: log_coeffs", logCoeffs, width);
  requireSize("log-space scan: log_values (T + 1 rows)", sz(T + 1) * sz(std::max(width, 0)),
              logValues.size());
  const size_t d = sz(std::max(width, 0)), rows = sz(T) + 1;
  std::vector<double> h(sz(T) * d), stars(rows * d), sums(rows * d);
  std::vector<double> leaves(rows);
  for (size_t u = 0; u < d; ++u) {
    leaves[0] = 0;  // a*_0 = 0 (F.pad in the listing)
    for (size_t t = 1; t < rows; ++t) leaves[t] = logCoeffs[(t - 1) * d + u];
    const std::vector<double> star =
        blellochInclusive(leaves, 0.0, [](double x, double y) { return x + y; });
    for (size_t t = 0; t < rows; ++t) leaves[t] = logValues[t * d + u] - star[t];
    const std::vector<double> sum = blellochInclusive(leaves, -kInf, logAddExp);
    for (size_t t = 0; t < rows; ++t) {
      stars[t * d + u] = star[t];
      sums[t * d + u] = sum[t];
      if (t > 0) h[(t - 1) * d + u] = std::exp(star[t] + sum[t]);
    }
  }
  if (aStar) *aStar = std::move(stars);
  if (lcse) *lcse = std::move(sums);
  return h;
}

std::vector<double> minRnnRetention(const MinRnnGates& gates) {
  checkMinRnnGates(gates);
  const size_t T = sz(gates.steps), d = sz(gates.width), cols = T + 1;
  std::vector<double> out(d * T * cols, 0.0);
  std::vector<double> row(cols);
  for (size_t u = 0; u < d; ++u) {
    std::fill(row.begin(), row.end(), 0.0);
    row[0] = 1;  // step 0: only h_0, untouched
    for (size_t t = 0; t < T; ++t) {
      const double a = std::exp(gates.logA[t * d + u]);
      for (size_t m = 0; m <= t; ++m) row[m] *= a;  // products grow one factor per step
      row[t + 1] = 1;
      std::copy(row.begin(), row.end(), out.begin() + static_cast<ptrdiff_t>((u * T + t) * cols));
    }
  }
  return out;
}

std::vector<double> minRnnAttention(const MinRnnGates& gates) {
  std::vector<double> out = minRnnRetention(gates);
  const size_t T = sz(gates.steps), d = sz(gates.width), cols = T + 1;
  for (size_t u = 0; u < d; ++u)
    for (size_t t = 0; t < T; ++t)
      for (size_t m = 1; m <= t + 1; ++m)
        out[(u * T + t) * cols + m] *= std::exp(gates.logW[(m - 1) * d + u]);
  return out;
}

}  // namespace lsrl::seed_models
