// The GateLoop operator (docs/spec/seed-models.md §2.1–2.6), float64 with std::complex: the
// data-controlled transition a_n = f(γ_pre) · exp(i g(θ_pre)) (§2.2) and the three ways
// of computing one layer's linear recurrence, which agree to rounding:
//   recurrent           H_n = diag(a_n) H_{n−1} + k_n v_nᵀ, y_n = H_nᵀ q_n       (§2.1, O(l))
//   scan                associative prefix scan over leaves (a_n, k_n v_nᵀ)     (§2.4)
//   attention           y_n = Σ_{m≤n} A[n,m] v_m with the surrogate attention A  (§2.5)
// plus a softmax variant of the attention (§2.6), which is a different model.
//
// Heads: d_qk = heads · d_h; each head has its own d_h × d_h state.
// Arrays are row-major: per-token vectors [T][heads·d_h], states [T][heads][d_h][d_h]
// (row = key index r, column = value index c).
//
//   GateLoopInputs in = gateLoopInputs(1, 1, 3);           // one channel, T = 3
//   in.logA.assign(3, gateLoopLogTransition(0, 0));         // a = σ(0) = 0.5, phase 0
//   in.q = {1, 1, 2}; in.k = {1, 2, 0}; in.v = {1, -1, 3};
//   std::vector<Complex> y = gateLoopRecurrent(in);         // (1, −1.5, −1.5)
//   // == gateLoopScan(in) == gateLoopAttention(in) to rounding
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace lsrl::seed_models {

using Complex = std::complex<double>;

// §2.2 activations: magnitude f ∈ {sigmoid (paper), exp(−exp(x)) (LRU-style)}, phase
// g ∈ {identity (paper), π·tanh(x)}. Both magnitudes lie in (0, 1).
enum class GateLoopMagnitude : uint8_t { Sigmoid, ExpExp };
enum class GateLoopPhase : uint8_t { Identity, PiTanh };
const char* gateLoopMagnitudeName(GateLoopMagnitude m);  // "sigmoid", "exp_exp"
std::optional<GateLoopMagnitude> gateLoopMagnitudeFromName(std::string_view name);
const char* gateLoopPhaseName(GateLoopPhase p);  // "identity", "pi_tanh"
std::optional<GateLoopPhase> gateLoopPhaseFromName(std::string_view name);

// log a = log f(γ_pre) + i g(θ_pre), in closed form (sigmoid: −softplus(−γ_pre)), so that
// products of transitions can be taken as sums without rounding |a| to 1 first.
Complex gateLoopLogTransition(double gammaPre, double thetaPre,
                              GateLoopMagnitude magnitude = GateLoopMagnitude::Sigmoid,
                              GateLoopPhase phase = GateLoopPhase::Identity);
// log a for a transition given directly (the test vectors): std::log, except that a = 0
// maps to a finite, hugely negative real part (see kGateLoopLogZero).
Complex gateLoopLogOf(Complex a);
// log|a| of a zero transition: exp of it (and of anything it is added to) is exactly 0,
// yet differences of prefix sums stay finite (−∞ − −∞ would be NaN).
constexpr double kGateLoopLogZero = -1e4;

// One layer's operator inputs for one sequence.
struct GateLoopInputs {
  int heads = 1;
  int dh = 1;  // d_h: 1 is the paper's max-headed (SISO) variant
  int steps = 0;
  std::vector<Complex> logA;    // [T][heads·d_h]  log a_n
  std::vector<double> q, k, v;  // [T][heads·d_h]
  std::vector<Complex> h0;      // [heads][d_h][d_h]; empty = 0 (the paper's H_0)

  int width() const { return heads * dh; }
};
// Inputs of the given sizes with every array zero-filled (h0 left empty).
GateLoopInputs gateLoopInputs(int heads, int dh, int steps);
// Throws lsrl::Error naming the array whose size does not match heads, dh, steps.
void checkGateLoopInputs(const GateLoopInputs& in);

// §2.1: the recurrence token by token. Returns y [T][heads·d_h] (complex; the layer's
// output is its real part). With `states`, H_n is stored for every n: [T][heads][d_h][d_h].
std::vector<Complex> gateLoopRecurrent(const GateLoopInputs& in,
                                       std::vector<Complex>* states = nullptr);

// §2.4: a scan element (A, B) = (a, k vᵀ) for all heads: A [heads·d_h], B [heads][d_h][d_h].
struct GateLoopElement {
  std::vector<Complex> A, B;
};
GateLoopElement gateLoopIdentity(int heads, int dh);  // (1, 0)
GateLoopElement gateLoopLeaf(const GateLoopInputs& in,
                             int n);  // token n (0-based); h0 folded into n = 0
// (A₁, B₁) • (A₂, B₂) = (A₂ ⊙ A₁, diag(A₂) B₁ + B₂); `earlier` is the left segment.
GateLoopElement gateLoopCombine(const GateLoopElement& earlier, const GateLoopElement& later,
                                int dh);

// How the inclusive prefix x_1 • … • x_n is formed: Blelloch's work-efficient up/down
// sweep (O(l) combines, padded to a power of two with the identity) or Hillis–Steele's
// step-efficient one (O(l log l) combines, the shape of a shared-memory GPU scan).
enum class GateLoopScanAlgorithm : uint8_t { Blelloch, HillisSteele };
std::vector<GateLoopElement> gateLoopPrefixScan(std::vector<GateLoopElement> leaves, int dh,
                                                GateLoopScanAlgorithm algorithm);
// y_n = H_nᵀ q_n from the scanned states; `states` as for gateLoopRecurrent.
std::vector<Complex> gateLoopScan(const GateLoopInputs& in,
                                  GateLoopScanAlgorithm algorithm = GateLoopScanAlgorithm::Blelloch,
                                  std::vector<Complex>* states = nullptr);

// §2.5: y_n = Σ_{m≤n} A[n,m] v_m (+ Σ_r q_n[r] π_n[r] H_0[r,:] for a non-zero H_0).
// Log: A[n,m] = Σ_r q_n[r] k_m[r] exp(L_n[r] − L_m[r]), L_n = Σ_{j≤n} log a_j; nothing
// overflows. Naive: A[n,m] = Σ_r (q_n π_n)[r] (k_m / π_m)[r], π the prefix product; 1/π
// overflows and π underflows on long sequences (the explorer shows that error growing).
// With `scores`, A is stored: [heads][T][T] (zero above the diagonal).
enum class GateLoopDomain : uint8_t { Log, Naive };
std::vector<Complex> gateLoopAttention(const GateLoopInputs& in,
                                       GateLoopDomain domain = GateLoopDomain::Log,
                                       std::vector<Complex>* scores = nullptr);

// §2.6 [E]: Y = softmax_rows(Re(Q̄ K̄ᵀ) + M_{−∞}) V per head, scores from the log domain.
// Not the recurrence: a different model the explorer compares against. H_0 is ignored.
std::vector<Complex> gateLoopSoftmaxAttention(const GateLoopInputs& in);

// The prefix sums L_n = Σ_{j≤n} log a_j, [T][heads·d_h]: the memory horizon
// |Π_{j=m+1}^{n} a_j| = exp(Re(L_n − L_m)) and its phase Im(L_n − L_m) (§5.2).
std::vector<Complex> gateLoopPrefixLog(const GateLoopInputs& in);

// The operator's modes by name, for configs and the CLI.
enum class GateLoopMode : uint8_t {
  Recurrent,         // "recurrent"
  Scan,              // "scan" (Blelloch)
  ScanHillisSteele,  // "scan_hillis_steele"
  Attention,         // "attention" (log domain)
  AttentionNaive,    // "attention_naive"
  Softmax            // "softmax" (§2.6; differs from the others)
};
const char* gateLoopModeName(GateLoopMode mode);
std::optional<GateLoopMode> gateLoopModeFromName(std::string_view name);
std::vector<Complex> gateLoopRun(const GateLoopInputs& in, GateLoopMode mode);

}  // namespace lsrl::seed_models
