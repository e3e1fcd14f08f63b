// The Live panel's prompt as one line of text: tokens of one value separated by spaces
// ("1 0 1 1 0"), tokens of several values separated by ";" with their values by "," or
// spaces ("3/10, 7/10; 0, 1"). Every value is in the exact scalar grammar ("1/3",
// "sqrt(2)/2"), as in the Token stepper's table.
#pragma once

#include <string>

#include "core/executor/executor.h"

namespace lsrl::studio {

// Throws lsrl::Error naming the token and value that do not parse, or a token whose width
// is not `width` (the program's Input; 0: any, as long as every token has the same).
ExactSequence parsePromptText(const std::string& text, int width);
std::string promptText(const ExactSequence& tokens);

}  // namespace lsrl::studio
