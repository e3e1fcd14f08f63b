// The Memory Horizon synthetic task of GateLoop (docs/spec/seed-models.md §2.9) and the two toy
// streams of §5.2, as seeded generators of token ids plus targets.
//
// Tokens: the numbers 0..maxNumber are their own ids; the reset token is maxNumber + 1.
// The target at position n is memoryHorizonTarget of the numbers since the most recent
// reset (the reset itself excluded, so a reset's own target is that of [] = 0).
//
// Parameters the paper's text lost, chosen here [E] (all configurable):
//   - numbers 0..4 and modulus 50 (the spec's defaults);
//   - `resets` reset tokens at distinct positions drawn uniformly from 1..length−1 (a
//     reset at position 0 would do nothing); every other position holds a number drawn
//     uniformly from 0..maxNumber;
//   - the paper's scale is length 1024, 3 resets, 2000 samples; the default here is
//     small (length 64) for the explorer.
//
//   MemoryHorizonParams p;                              // length 64, 3 resets, 0..4, mod 50
//   MemoryHorizonSample s = memoryHorizonSample(p, 7);  // seed 7
//   Sequence x = oneHot(s.tokens, p.vocabulary());      // [64][6]
//   // s.targets[n] ∈ [0, 50)
#pragma once

#include <cstdint>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

struct MemoryHorizonParams {
  int length = 64;
  int resets = 3;
  int maxNumber = 4;
  int modulus = 50;

  int resetToken() const { return maxNumber + 1; }
  int vocabulary() const { return maxNumber + 2; }  // numbers and the reset token
};

struct MemoryHorizonSample {
  std::vector<int> tokens;   // [length] ids
  std::vector<int> targets;  // [length] in [0, modulus)
};

// §2.9's target of one list: pair first with last, second with second-to-last, ...; add,
// subtract, add, ... the products (a middle element left over joins the alternation);
// the result modulo `modulus` in [0, modulus). [3,1,4,1,5] → 18; [] → 0.
int memoryHorizonTarget(const std::vector<int>& numbers, int modulus);
// The target at every position of a token stream (see the header comment).
std::vector<int> memoryHorizonTargets(const std::vector<int>& tokens, const MemoryHorizonParams& p);

// One sample: deterministic per (params, seed) on every platform. Throws lsrl::Error for
// negative sizes, maxNumber < 0, modulus < 1 or resets ≥ length (when length > 0; an
// empty sequence has no resets).
MemoryHorizonSample memoryHorizonSample(const MemoryHorizonParams& p, uint64_t seed);
// `count` samples, sample i drawn with seed `seed + i` (the paper: 2000 samples).
std::vector<MemoryHorizonSample> memoryHorizonDataset(const MemoryHorizonParams& p, int count,
                                                      uint64_t seed);

// §5.2 "sum since last reset" toy on the same token stream: the sum of the numbers since
// the most recent reset (0 at a reset), not reduced by any modulus.
std::vector<double> sumSinceReset(const std::vector<int>& tokens, const MemoryHorizonParams& p);
// §5.2 "tick": `length` copies of the number token 1 (min(1, maxNumber)); a constant phase
// θ = 2π/P then makes Re(h) oscillate with period P.
std::vector<int> tickTokens(const MemoryHorizonParams& p);

// Token ids → one-hot rows of width `vocabulary`; throws lsrl::Error for an id outside it.
Sequence oneHot(const std::vector<int>& tokens, int vocabulary);

}  // namespace lsrl::seed_models
