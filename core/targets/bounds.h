// Interval bounds on the values of a linear-state NF model (docs/spec/targets.md §2.2): for
// inputs in a box and t ≤ T, the range of every state, of the F branch output and of
// every layer output. Used for the shift's lower bound c (positivity.h) and the GRU
// product's upper bound K (gru.h).
#pragma once

#include <vector>

#include "core/targets/normal_form.h"

namespace lsrl {

struct IntervalBox {
  ExactVector lo;
  ExactVector hi;
};

struct LayerBounds {
  IntervalBox state;   // s_t over 1 ≤ t ≤ T
  IntervalBox f;       // F(s_t) (= the state box when F is empty)
  IntervalBox output;  // y_t: f ⊙ g, or f
};

// Every input component in [inputLo, inputHi], independently at every step; horizon T ≥ 1.
// The state box is the unrolled response of §2.2 (tight for independent inputs), not the
// step-wise interval recursion, which grows like ‖|A|‖^T. Every layer must have a linear
// state; throws lsrl::Error naming the layer otherwise.
std::vector<LayerBounds> layerBounds(const NfModel<Exact>& model, const Exact& inputLo,
                                     const Exact& inputHi, int horizon);

}  // namespace lsrl
