// The timestep encoding of the TMLT (docs/spec/seed-models.md §T2): the loop index t becomes
// the per-loop scales α_1, α_2, γ_1, γ_2 of the block (looped_block.h), independent of the
// input sequence:
//
//   PE(t) ∈ R^{d_f}   sinusoid, ω_i = 10000^{−i/half}, half = ⌊d_f/2⌋, i = 0…half−1:
//                     code layout [cos(tω_0) … cos(tω_{half−1}), sin(tω_0) … ] (DiT), or
//                     the paper's interleaved (sin(tω_i), cos(tω_i)) pairs; odd d_f: a 0 last
//   TE(t) = W_3 SiLU(W_4 PE(t) + b_4) + b_3            W_4 [d][d_f], W_3 [d][d]
//   m(t)  = W_5 SiLU(TE(t)) + b_5                       W_5 [4d][d], b_5 [4d]
//   m(t)  = [γ_1 | γ_2 | s_1 | s_2] (chunks of d, code order),  α = 1 + s
//
//   TimestepWeights tw{w4, w3, w5};                      // Affine maps (biases inside)
//   TimestepCode code = timestepCode(tw, 0, 4, PeLayout::CosThenSin);
//   code.mod.gamma1;                                     // d values
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/seed_models/looped_block.h"

namespace lsrl::seed_models {

enum class PeLayout : uint8_t {
  CosThenSin,
  SinCosInterleaved
};  // "cos_sin", "sin_cos_interleaved"
const char* peLayoutName(PeLayout p);
std::optional<PeLayout> peLayoutFromName(std::string_view name);

// PE(t), d_f entries.
Vector sinusoidalCode(double t, int dFreq, PeLayout layout);

struct TimestepWeights {
  Affine w4;  // [d][d_f], b_4
  Affine w3;  // [d][d], b_3
  Affine w5;  // [4d][d], b_5 (4d, §8.2)
};

struct TimestepCode {
  Vector pe;       // PE(t) [d_f]
  Vector te;       // TE(t) [d]
  Vector m;        // m(t) [4d]
  Modulation mod;  // split of m(t), α = 1 + s
};

TimestepCode timestepCode(const TimestepWeights& w, int t, int dFreq, PeLayout layout);

double silu(double u);

}  // namespace lsrl::seed_models
