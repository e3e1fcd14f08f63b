// A modulo counter that fp32 computes exactly. The sugar's f_modulo_counter(x, n, μ) rotates
// a unit vector by 2π/n and reads the position with steps at cos(π/n): its coefficients
// are cosines and sines, which no binary format holds, so every later comparison with the
// count inherits a rounding error (the one source of error left in the fitted tok2tok
// programs in fp32, docs/precision.md). The precision pass for fp32 rebuilds it, in place
// and with the same nodes, as a one-hot shift register: the state is e_{t mod n}, moved by
// a cyclic permutation; the indicator is the state itself; the steps compare it with 1/2
// (scale 4: ReLU(2) − 4·ReLU(1/4) = 1 at ½, 0 at −½). Every value is 0, 1, ±½ or a whole
// number, so the count is exact in any format. The output t mod n is unchanged at every
// step t (the state does not read the input); the state grows from 2 to n.
#pragma once

#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace lsrl {

// Rebuilds the f_modulo_counter group `counter` in place; returns why not (edited by hand,
// a divisor below 3, not the structure f_modulo_counter builds) and changes nothing then.
std::optional<std::string> makeCounterExact(Graph& g, GroupId counter);

}  // namespace lsrl
