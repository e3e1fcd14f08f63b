// 1234567 -> "1,234,567": counts in messages and progress lines (graph sizes, tokens).
#pragma once

#include <cstddef>
#include <string>

namespace lsrl {

inline std::string withThousands(size_t n) {
  std::string digits = std::to_string(n);
  for (auto at = static_cast<long>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<size_t>(at), ",");
  return digits;
}

}  // namespace lsrl
