// The small geometric inputs of docs/models.md for the Lattice explorer, as token
// streams (k_t, v_t, q_t, γ_t, μ_t) for one head. With d = 3 the slots and the values are
// points on the unit sphere that the explorer draws directly (no PCA).
//
//   "rotating"           v_t goes round a great circle (15° a step); k_t = q_t cycle the slots
//   "repeated"           one (k, v) 20 times: the updates die out once the slots align
//   "parallel"           v = 2 e1 along slot 1 of S_0 = I, k = e1 (test L6): an error, no move
//   "orthogonal_bursts"  6-token bursts along each axis of a random orthonormal basis
//   "low_rank"           v_t in a random rank-2 subspace plus noise 0.05: the slots find it
//   "recall"             4m random (k, v) writes, then 2m reads of old keys (γ = 0, k = 0,
//                        v = the stored value to compare y with)
//
//   auto tokens = latticeDemo("rotating", /*m=*/3, /*d=*/3, /*seed=*/0);
//   Sequence y = latticeRecurrence(identitySlots(3, 3), tokens, LatticeOptions{});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/seed_models/lattice_step.h"

namespace lsrl::seed_models {

std::vector<std::string> latticeDemoNames();  // "rotating" (the default) first

// The demo's tokens for m slots of dimension d, deterministic per seed; lsrl::Error for an
// unknown name (listing the known ones) or m, d < 1.
std::vector<LatticeToken> latticeDemo(const std::string& name, int m, int d, uint64_t seed);

}  // namespace lsrl::seed_models
