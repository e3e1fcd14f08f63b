// One block of the looped transformer (docs/spec/seed-models.md §T1.2–1.3), float64: pre-norm
// multi-head attention and MLP, each branch gated per channel by the loop's timestep
// scales (the TMLT "adaLN-Zero" form):
//
//   X'  = X  + γ_1(t) ⊙ MHA( RMSN(X,  α_1(t)) )       RMSN(x, α) = α ⊙ x / sqrt(mean(x²) + eps)
//   X'' = X' + γ_2(t) ⊙ MLP( RMSN(X', α_2(t)) )       MLP(z) = W_2 act(W_1 z + b_1) + b_2
//
// With α ≡ γ ≡ 1 this is the plain looped block; with norm "none", no 1/√s and hardmax it
// is the theory block of §1.2 (the proofs' constructions, §6.2). Sequences are rows
// [N][d] (token n is row n, the transpose of the paper's d×N). Attention probabilities
// are [heads][N][N] with row = query, column = key (the paper's matrix transposed).
//
//   LoopedBlockWeights w = ...;                    // Affine q, k, v, o, fc1, fc2
//   LoopedBlockOptions o;  o.heads = 1;  o.headDim = 2;
//   LoopedBlockRecord rec;
//   Sequence next = loopedBlock(x, w, o, Modulation::identity(2), &rec);   // X''
//   rec.probs;                                      // [1][N][N]
//
// Choices where the spec is silent: hardmax ties split the mass evenly among the maximal
// keys (as the spec's reference does); a NaN score makes that query's whole row NaN;
// norm "none" still applies α (RMSN(x, α) = α ⊙ x), so α folds into the weights in both.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/io/tensor.h"
#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

// y = W x + b with W [out][in] row-major; an empty b means no bias.
struct Affine {
  int out = 0;
  int in = 0;
  std::vector<double> w;
  std::vector<double> b;

  Vector apply(const Vector& x) const;
  // From a weight tensor [out][in] and an optional bias [out].
  static Affine fromTensors(const Tensor& weight, const Tensor* bias);
};

enum class LoopedScoring : uint8_t { Softmax, Hardmax };  // "softmax", "hardmax"
enum class LoopedActivation : uint8_t { GELU, ReLU };     // "gelu" (exact erf), "relu"
enum class LoopedNorm : uint8_t { RMS, None };            // "rms", "none"
const char* loopedScoringName(LoopedScoring s);
std::optional<LoopedScoring> loopedScoringFromName(std::string_view name);
const char* loopedActivationName(LoopedActivation a);
std::optional<LoopedActivation> loopedActivationFromName(std::string_view name);
const char* loopedNormName(LoopedNorm n);
std::optional<LoopedNorm> loopedNormFromName(std::string_view name);

struct LoopedBlockOptions {
  int heads = 1;
  int headDim = 1;  // s; q, k, v are heads·s wide
  LoopedScoring scoring = LoopedScoring::Softmax;
  double lambda = 1;        // inverse temperature: multiplies the scores (softmax only)
  bool scaleRsqrtS = true;  // scores · 1/√s (practice) or not (theory)
  bool causal = false;      // key j > query n is masked
  LoopedNorm norm = LoopedNorm::RMS;
  double rmsEps = 1e-6;  // inside the sqrt
  LoopedActivation activation = LoopedActivation::GELU;
  // The published LoopedGPT baseline (§1.5): values from the un-normalised X, no norm (and
  // no α) in front of the MLP.
  bool baselineCompat = false;
};

struct LoopedBlockWeights {
  Affine q, k, v;  // [heads·s][d]
  Affine o;        // [d][heads·s]
  Affine fc1;      // [d_ff][d]
  Affine fc2;      // [d][d_ff]
};

// The per-loop vectors of §1.3, each d wide.
struct Modulation {
  Vector gamma1, gamma2, alpha1, alpha2;
  static Modulation identity(int d);  // α = γ = 1: the plain looped block
};

// What one application of the block computed (each [N][d] unless noted).
struct LoopedBlockRecord {
  Sequence mid;               // X'
  Sequence attnBranch;        // γ_1 ⊙ MHA(...)  (X' − X)
  Sequence mlpBranch;         // γ_2 ⊙ MLP(...)  (X'' − X')
  std::vector<double> probs;  // [heads][N][N], row = query, column = key
};

// X'' for the rows x (each d = w.o.out wide). NaN/Inf propagate: a non-finite token
// reaches every query that attends to it (all of them unless causal).
Sequence loopedBlock(const Sequence& x, const LoopedBlockWeights& w, const LoopedBlockOptions& opt,
                     const Modulation& mod, LoopedBlockRecord* record = nullptr);

// One query's probabilities over its keys 0..keys−1 from raw scores ⟨q, k⟩ (already
// scaled by 1/√s where that applies): softmax(λ · scores) or hardmax.
std::vector<double> attentionRow(const std::vector<double>& scores, LoopedScoring scoring,
                                 double lambda);

// The same block with α, γ folded into the weights (§1.3's observation): W_{Q,K,V}·diag(α_1),
// diag(γ_1)·W_O (and b_O), W_1·diag(α_2), diag(γ_2)·W_2 (and b_2). Run with
// Modulation::identity it gives loopedBlock(x, w, opt, mod). Not valid with
// baselineCompat (the values bypass the norm).
LoopedBlockWeights foldModulation(const LoopedBlockWeights& w, const Modulation& mod);

}  // namespace lsrl::seed_models
