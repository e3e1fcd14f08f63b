// A vector of values as the explorer shows it: "[1, 0, 1/3]" for exact values (the scalar
// grammar), "[1, 0, 0.333333]" for doubles (6 significant digits). The Token stepper and
// the Live panel show the same texts, and the Live panel compares values as shown.
#pragma once

#include <string>
#include <vector>

#include "core/numbers/exact.h"

namespace lsrl::studio {

std::string formatExact(const std::vector<Exact>& v);
std::string formatDouble(const std::vector<double>& v);

}  // namespace lsrl::studio
