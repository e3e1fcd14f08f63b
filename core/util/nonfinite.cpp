#include "core/util/nonfinite.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lsrl {

namespace {

// Values checked per branch-free pass: small enough that the search after a hit is short.
constexpr size_t kBlock = 256;

// Whether a block holds a value that is not finite: one whose exponent bits are all set.
// Masked, the exponent field plus its lowest bit carries into the sign bit exactly when it
// is all ones, so the test is AND, ADD and OR on integers, which the compiler vectorises
// even for plain SSE2 (std::isfinite in a loop with an early exit is not).
template <class Float, class Bits>
bool blockHasNonFinite(const Float* values, size_t count, Bits exponentMask) {
  const Bits lowestExponentBit = exponentMask & (~exponentMask + 1);
  const Bits signBit = exponentMask + lowestExponentBit;
  Bits any = 0;
  for (size_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, values + i, sizeof bits);
    any |= (bits & exponentMask) + lowestExponentBit;
  }
  return (any & signBit) != 0;
}

template <class Float, class Bits>
size_t firstNonFiniteIn(std::span<const Float> values, Bits exponentMask) {
  for (size_t at = 0; at < values.size(); at += kBlock) {
    const size_t count = std::min(kBlock, values.size() - at);
    if (!blockHasNonFinite(values.data() + at, count, exponentMask)) continue;
    for (size_t i = at; i < at + count; ++i)
      if (!std::isfinite(values[i])) return i;
  }
  return values.size();
}

std::string nonFiniteOutcome(double value) {
  if (std::isnan(value)) return "computed NaN";
  return value > 0 ? "overflowed to +infinity" : "overflowed to -infinity";
}

}  // namespace

bool NonFiniteSite::before(const NonFiniteSite& other) const {
  if (sequence != other.sequence) return sequence < other.sequence;
  if (token != other.token) return token < other.token;
  return rank < other.rank;
}

std::string NonFiniteSite::describe(bool withSequence) const {
  std::string s = withSequence ? "sequence " + std::to_string(sequence) + ", " : std::string();
  return s + "token " + std::to_string(token) + ": " + where + " " + nonFiniteOutcome(value) +
         " (component " + std::to_string(component) + ")";
}

void keepEarliest(std::optional<NonFiniteSite>& first, const NonFiniteSite& site) {
  if (!first || site.before(*first)) first = site;
}

size_t firstNonFinite(std::span<const float> values) {
  return firstNonFiniteIn<float, uint32_t>(values, 0x7f800000u);
}

size_t firstNonFinite(std::span<const double> values) {
  return firstNonFiniteIn<double, uint64_t>(values, 0x7ff0000000000000ull);
}

}  // namespace lsrl
