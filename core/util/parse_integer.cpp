#include "core/util/parse_integer.h"

#include <stdexcept>

#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {

int parseBoundedInt(const std::string& text, const std::string& what, long long lo, long long hi) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {  // not a number, or out of a long long's range
    used = 0;
  }
  if (used == 0 || used != text.size() || v < lo || v > hi) {
    throw Error(what + " expects an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                ", got " + quoteInput(text));
  }
  return static_cast<int>(v);
}

}  // namespace lsrl
