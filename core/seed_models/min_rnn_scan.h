// The recurrence minGRU and minLSTM share (docs/spec/seed-models.md §3.2–3.4), float64: one layer
// is h_t = a_t ⊙ h_{t−1} + w_t ⊙ h̃_t with a_t + w_t = 1 elementwise, i.e. the linear recurrence h_t
// = a_t ⊙ h_{t−1} + b_t with a_t, b_t known in advance. Three modes that agree to rounding (the
// acceptance property, 1e-10 in float64):
//   sequential   the loop, one step at a time (inference)
//   parallel     an associative scan (Blelloch) over leaves (a_t, b_t) with
//                (a₁, b₁) • (a₂, b₂) = (a₁a₂, a₂b₁ + b₂), b_0 := h_0            (§3.2)
//   log_space    Heinsen's scan on logarithms (§3.4, the paper's training path):
//                log h_t = a*_t + logcumsumexp_{j≤t}(log b_j − a*_j), a*_t = Σ_{j≤t} log a_j
// The log-space scan needs b > 0, so it runs only the "log" variant, whose candidate is
// h̃ = g(ĥ) > 0 (g below); the "vanilla" variant has h̃ = ĥ (§3.4 point 3: different
// functions). Both variants run in the sequential and parallel modes.
//
// Initial state (§3.4 point 1): the functions here take the state the loop starts from;
// minRnnInitialState gives the paper's choice, g(h_0) for the log variant (so h_0 = 0
// starts from 0.5) and h_0 itself for the vanilla one.
//
// Arrays are row-major [T][d] (d = units). A NaN or Inf at step t reaches the states of
// steps ≥ t only, in every mode (the scans never combine a leaf into an earlier prefix).
//
//   MinRnnGates gates = minGruGates(k, hPre, 2);            // mingru.h; T = 3, d_h = 2
//   std::vector<double> h0 = minRnnInitialState({0, 1}, MinRnnVariant::Log);   // (0.5, 1.5)
//   auto h = minRnnRun(gates, MinRnnVariant::Log, MinRnnMode::LogSpace, h0);   // [3][2]
//   // == minRnnRun(gates, MinRnnVariant::Log, MinRnnMode::Sequential, h0) to 1e-15
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lsrl::seed_models {

// §0 and §3.4 scalar functions, each in the numerically safe form.
double minRnnSigmoid(double x);
double minRnnSoftplus(double x);       // max(x, 0) + log1p(exp(−|x|))
double minRnnG(double x);              // x + 0.5 for x ≥ 0, σ(x) otherwise: positive, continuous
double minRnnLogG(double x);           // log(x + 0.5) for x ≥ 0, −softplus(−x) otherwise
double logAddExp(double x, double y);  // log(eˣ + eʸ); −∞ is its identity

// One layer's recurrence for one sequence, as the cells produce it from their
// pre-activations (mingru.h, minlstm.h): the gates in log form (closed forms that never
// round a gate to 0 or 1 first) and the candidate's pre-activation.
struct MinRnnGates {
  int steps = 0;
  int width = 0;             // d_h
  std::vector<double> logA;  // [T][d] log a_t: the weight of h_{t−1} (log(1−z), log f')
  std::vector<double> logW;  // [T][d] log w_t = log(1 − a_t): the candidate's (log z, log i')
  std::vector<double> candidate;  // [T][d] ĥ_t = Linear_h(x_t), before g
};
// Throws lsrl::Error naming the array whose size is not steps × width.
void checkMinRnnGates(const MinRnnGates& gates);
// A cell's gates before their arithmetic: the shape and the candidate ĥ [T][width], with
// logA and logW left for the cell to fill. Throws lsrl::Error "<cell> gates: ..." when
// ĥ is not rows of width ≥ 1.
MinRnnGates minRnnGatesWithCandidate(const std::string& cell, const std::vector<double>& candidate,
                                     int width);

enum class MinRnnVariant : uint8_t {
  Vanilla,  // "vanilla": h̃ = ĥ (§3.2, §3.3)
  Log       // "log": h̃ = g(ĥ), the paper's log-space model (§3.4)
};
enum class MinRnnMode : uint8_t {
  Sequential,  // "sequential"
  Parallel,    // "parallel": Blelloch scan in linear space
  LogSpace     // "log_space": Heinsen scan; the log variant only
};
const char* minRnnVariantName(MinRnnVariant v);
std::optional<MinRnnVariant> minRnnVariantFromName(std::string_view name);
const char* minRnnModeName(MinRnnMode m);
std::optional<MinRnnMode> minRnnModeFromName(std::string_view name);

// The candidates h̃ [T][d] of a variant, and the state the recurrence starts from for a
// raw h_0 (g(h_0) for the log variant, §3.4 point 1).
std::vector<double> minRnnCandidates(const MinRnnGates& gates, MinRnnVariant variant);
std::vector<double> minRnnInitialState(const std::vector<double>& h0, MinRnnVariant variant);

// The states h_1..h_T [T][d] from the start state h0 [d] (already effective: see above).
// LogSpace throws lsrl::Error for the vanilla variant or an h0 entry ≤ 0 (its log would
// not exist); every mode throws for sizes that do not match.
std::vector<double> minRnnSequential(const MinRnnGates& gates, MinRnnVariant variant,
                                     const std::vector<double>& h0);
std::vector<double> minRnnParallel(const MinRnnGates& gates, MinRnnVariant variant,
                                   const std::vector<double>& h0);
std::vector<double> minRnnLogSpace(const MinRnnGates& gates, MinRnnVariant variant,
                                   const std::vector<double>& h0);
std::vector<double> minRnnRun(const MinRnnGates& gates, MinRnnVariant variant, MinRnnMode mode,
                              const std::vector<double>& h0);

// The log-space scan's values log b_0..log b_T [T+1][d]: log h0, then log w_t + log g(ĥ_t)
// (the log variant; what §3.4 calls log_values, with log b_0 = log h0_eff).
std::vector<double> minRnnLogValues(const MinRnnGates& gates, const std::vector<double>& h0);

// --- The scans themselves, on plain arrays (width = h0.size() or logValues' row width).

// (a₁, b₁) • (a₂, b₂) = (a₁a₂, a₂b₁ + b₂); `earlier` is the left segment. Identity (1, 0).
struct ScanPair {
  double a = 1;
  double b = 0;
};
ScanPair scanCombine(ScanPair earlier, ScanPair later);

// h_t = a_t h_{t−1} + b_t for a, b [T][d] and h0 [d]: the loop, and Blelloch's
// work-efficient scan (up-sweep, down-sweep, padded with the identity to a power of two).
std::vector<double> linearScanSequential(const std::vector<double>& a, const std::vector<double>& b,
                                         const std::vector<double>& h0);
std::vector<double> linearScanParallel(const std::vector<double>& a, const std::vector<double>& b,
                                       const std::vector<double>& h0);

// §3.4's parallel_scan_log for one sequence: logCoeffs [T][d], logValues [T+1][d] →
// h [T][d]. Optionally the intermediates a* and logcumsumexp(log_values − a*), each
// [T+1][d] (row 0 is a*_0 = 0 and log b_0). The prefix sum and the logcumsumexp are
// Blelloch scans too (with + and logAddExp).
std::vector<double> logSpaceScan(const std::vector<double>& logCoeffs,
                                 const std::vector<double>& logValues, int width,
                                 std::vector<double>* aStar = nullptr,
                                 std::vector<double>* lcse = nullptr);

// §5.3 implicit attention, [d][T][T+1] per unit u (row r is step t = r + 1; column 0 is
// h_0, column m ≥ 1 token m): h_t = w_{t,0} h_0 + Σ_{m=1}^{t} w_{t,m} h̃_m with
// w_{t,0} = Π_{j=1}^{t} a_j and w_{t,m} = w_m Π_{j=m+1}^{t} a_j (0 for m > t). Rows sum to 1.
std::vector<double> minRnnAttention(const MinRnnGates& gates);
// Retention Π_{j=m+1}^{t} a_j, laid out as above (m = t: 1; m > t: 0): how much of what
// entered at step m (m = 0: h_0) is left at step t.
std::vector<double> minRnnRetention(const MinRnnGates& gates);

}  // namespace lsrl::seed_models
