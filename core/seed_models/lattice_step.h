// One token of Lattice's Orthogonal State Recurrence (docs/spec/seed-models.md §1), float64, one
// head: the update every form of §1.4–1.6 shares, with the diagnostics the explorer
// draws (§5.1). The model (lattice.h) runs it per head and token; a Vulkan twin mirrors
// latticeStep (§1.10).
//
// The state S ∈ R^{d×m} is stored slot-major: slot i is data[i·d, i·d + d) (column i of
// S; the same order as the trace's [m][d] arrays).
//
//   LatticeSlots S = identitySlots(3, 2);                  // S_0 = [e1 e2]
//   LatticeToken tok{{1, 0}, {0, 0, 1}, {1, 1}, 1.0, 1.0};  // k, v, q, γ, μ
//   LatticeStepOut out = latticeStep(S, tok, LatticeOptions{});  // NOSR, DEC
//   // out.y = S_1 q = (0.707107, 1, 0.707107)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

// The update: the OSR forms (§1.4–1.5) and the comparison forms of §1.6.
//   nosr                 normalise(μ s + Δs), Δs = α · P(s) h (§1.5, the default)
//   osr                  μ s + Δs, no renormalisation (eq. 13; ‖s‖ grows)
//   l1                   soft(μ s + Δs, γλ) elementwise (ISTA, eq. 17–18, read with S_{t−1})
//   output_normalised    S − γ (P(z) e / ‖z‖) kᵀ, z = S k, e = z/‖z‖ − v (eq. 19)
//   delta                S (I − γ k kᵀ) + γ v kᵀ (eq. 20)
//   linear_attention     S + v kᵀ
//   mamba2               μ S + v kᵀ
//   gated_deltanet       μ S (I − γ k kᵀ) + γ v kᵀ
enum class LatticeMode : uint8_t {
  Nosr,
  Osr,
  L1,
  OutputNormalised,
  Delta,
  LinearAttention,
  Mamba2,
  GatedDeltaNet
};
// The inner loss of the OSR forms (§1.3): h and c of §1.4.
enum class LatticeVariant : uint8_t { Dec, Enc, Sim };
// NOSR's β: 1/‖s̃‖ from the actual norm (the default, [E]) or the closed form
// (μ² + ‖Δs‖²)^{-1/2}, exact only for unit previous slots (§1.5).
enum class LatticeBeta : uint8_t { Norm, ClosedForm };
constexpr int kLatticeModeCount = 8, kLatticeVariantCount = 3, kLatticeBetaCount = 2;

const char* latticeModeName(LatticeMode mode);  // "nosr", "osr", "l1", ...
std::optional<LatticeMode> latticeModeFromName(std::string_view name);
const char* latticeVariantName(LatticeVariant variant);  // "dec", "enc", "sim"
std::optional<LatticeVariant> latticeVariantFromName(std::string_view name);
const char* latticeBetaName(LatticeBeta beta);  // "norm", "closed_form"
std::optional<LatticeBeta> latticeBetaFromName(std::string_view name);
// The forms that project the incoming vector per slot (nosr, osr, l1): the ones the
// variant and the chunked approximation apply to.
bool latticeIsOrthogonal(LatticeMode mode);

struct LatticeOptions {
  LatticeMode mode = LatticeMode::Nosr;
  LatticeVariant variant = LatticeVariant::Dec;
  LatticeBeta beta = LatticeBeta::Norm;
  double lambda = 0.05;  // l1: the threshold is γ·λ ([E]: the paper gives no value)
  double eps = 1e-12;    // ‖s‖ = sqrt(max(sᵀs, ε²)); below it P = I and no division (§1.5)
};

struct LatticeSlots {
  int d = 0, m = 0;
  Vector data;  // m·d, slot-major
  double* slot(int i) { return data.data() + static_cast<size_t>(i) * d; }
  const double* slot(int i) const { return data.data() + static_cast<size_t>(i) * d; }
};

// S_0 = I_d[:, 0:m] (§1.5's default; slots past d are zero, which the ε guard handles).
LatticeSlots identitySlots(int d, int m);
// Seeded random orthonormal columns (Gram–Schmidt of a Gaussian d×m, i.e. QR with R's
// diagonal positive); when m > d, seeded random unit columns instead (§1.5).
LatticeSlots randomOrthonormalSlots(int d, int m, Rng& rng);

struct LatticeToken {
  Vector k;          // m: write coefficients
  Vector v;          // d: value / target
  Vector q;          // m: read coefficients
  double gamma = 1;  // inner step size γ_t
  double mu = 1;     // forget scalar μ_t
};

// Everything one step computes, per slot i (the previous slot is s_{i,t−1}):
//   incoming    h_t (d): the vector the slots take their parts of — the variant's h in
//               the OSR forms (DEC: e, ENC: v, SIM: −v); the written vector otherwise
//               (v; v − S k; v − μ S k; P(z) e / ‖z‖)
//   parallel / orthogonal (m×d): h's part along s_i and its part orthogonal to s_i
//   writeStrength α_i: Δs_i = α_i · orthogonal_i (OSR forms) or α_i · incoming (others)
//   delta (m×d) Δs_i; preNorm ‖s̃_i‖ with s̃_i = μ s_i + Δs_i (before φ / soft threshold)
//   beta        NOSR's rescaling (1/‖s̃‖ or the closed form); 1 in the other forms
//   theta       the angle between s_{i,t−1} and s_{i,t} (= atan(‖Δs‖/μ) in NOSR)
//   cosIn       s_iᵀh / (‖s_i‖‖h‖); perpFrac ‖h^{⊥s_i}‖/‖h‖ (both 0 when ‖h‖ = 0)
//   guarded     1 where ‖s_i‖ < ε (P = I, no division) or s̃_i could not be normalised
//   error       DEC, output_normalised: e (d); ENC: e (m); delta, gated: S k − v (d);
//               SIM, linear attention, mamba2: empty
//   lossBefore / lossAfter: the inner loss at S_{t−1} and at S_t (latticeLoss)
struct LatticeStepOut {
  Vector y;  // d: S_t q_t
  Vector incoming, error;
  Vector parallel, orthogonal, delta;
  Vector writeStrength, beta, theta, cosIn, perpFrac, preNorm, guarded;
  double lossBefore = 0, lossAfter = 0;
};

// One token: updates S in place (S_{t−1} → S_t) and reads y_t = S_t q_t. Sizes are the
// caller's to check (the model does); NaN/Inf in the token propagate into S and y.
LatticeStepOut latticeStep(LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt);

// The inner loss the form descends, at state S: DEC ‖φ(S)k − v‖², ENC ‖φ(S)ᵀv − k‖²,
// SIM −⟨φ(S)ᵀv, k⟩ (nosr, osr, l1); delta, gated_deltanet ‖S k − v‖²; output_normalised
// ‖φ(S k) − v‖²; linear_attention, mamba2 −⟨S k, v⟩.
double latticeLoss(const LatticeSlots& S, const LatticeToken& tok, const LatticeOptions& opt);

// A whole sequence from S_0: one y_t per token. With `steps` / `slots`, each step's
// diagnostics and S_t are kept as well. chunk > 1 is §1.7's chunked APPROXIMATION (nosr and
// osr only; lsrl::Error otherwise): inside a chunk every step is computed from the frozen
// S_{t0}, and S_t = φ(S_{t0} + Σ_{τ≤t} (s̃_τ − S_{t0})) (no φ for osr); chunk 1 is exact.
// There a step's diagnostics are those from S_{t0}; y, beta (the prefix sum's 1/‖·‖),
// lossAfter and the kept slots are S_t's.
Sequence latticeRecurrence(LatticeSlots S, const std::vector<LatticeToken>& tokens,
                           const LatticeOptions& opt, int chunk = 1,
                           std::vector<LatticeStepOut>* steps = nullptr,
                           std::vector<LatticeSlots>* slots = nullptr);

}  // namespace lsrl::seed_models
