// Making states non-negative (docs/spec/targets.md §2): a linear-state NF becomes a
// ReLU-state NF that computes the same outputs, so a Gated Linear RNN becomes a Gated
// RNN and a Linear RNN a classic RNN.
#pragma once

#include <vector>

#include "core/targets/normal_form.h"

namespace lsrl {

// §2.1, the paper's Eq. 11: every linear state s becomes s̃ = [s⁺; s⁻] with
//   Ã = [[A, −A], [−A, A]], B̃ = [B; −B], b̃ = [b; −b], s̃0 = [ReLU(s0); ReLU(−s0)]
// and the first layer of each branch reads s = [I, −I] s̃. Exact for every input and
// every sequence length. Layers that already have a ReLU state are kept as they are.
// A linear layer with an empty F branch (never produced by compileNormalForm) cannot
// be split and is rejected with lsrl::Error.
NfModel<Exact> splitPositivity(const NfModel<Exact>& model);

// §2.2: shift every linear state by a lower-bound vector c ≥ 0 (s̃ = s + c):
//   b̃ = b + c − A c, s̃0 = s0 + c, and the first layer of each branch reads s̃ − c.
// c = max(0, −min_{1≤t≤T} lo_t) from the unrolled response to inputs in the box
// (every input component in [inputLo, inputHi], independently at every step), each
// positive entry rounded up to a power of two. Exact only for t ≤ horizon and inputs
// in the box. Every layer must have a linear state.
struct ShiftOptions {
  Exact inputLo = Exact(-1);
  Exact inputHi = Exact(1);
  int horizon = 0;  // T >= 1
};

struct ShiftResult {
  NfModel<Exact> model;
  std::vector<ExactVector> c;  // per layer
};

ShiftResult shiftPositivity(const NfModel<Exact>& model, const ShiftOptions& options);

}  // namespace lsrl
