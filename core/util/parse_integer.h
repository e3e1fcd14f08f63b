// An integer option's text checked against its range, the one parse behind the CLI's
// integer options and the target options' horizon (core/targets/target_option_values.h).
#pragma once

#include <string>

namespace lsrl {

// The integer `text` spells, all of it, within lo..hi; else lsrl::Error
// "<what> expects an integer in lo..hi, got \"text\"".
int parseBoundedInt(const std::string& text, const std::string& what, long long lo, long long hi);

}  // namespace lsrl
