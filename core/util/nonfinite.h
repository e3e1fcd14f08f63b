// Where a float run first computed a value that is not finite: an overflow to ±infinity,
// or a NaN (inf − inf, 0·inf). Such a value poisons everything after it, or vanishes into
// a finite but wrong result (a ReLU of −inf, a product with 0), so the runners that check
// (the float64 executor per node, the fp32 CPU batch runner per layer) report the first
// one and `lsrl run` refuses the answer (docs/input-format.md, "Non-finite values").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace lsrl {

struct NonFiniteSite {
  size_t sequence = 0;   // within the batch the runner was given
  size_t token = 0;      // 0-based, since the sequence's reset
  size_t rank = 0;       // the node's (layer's) place in the evaluation order of a token
  int64_t node = -1;     // the graph node's id, when the runner knows it
  std::string where;     // "node 4", "node 2 (Linear)", "gru layer 1: W_ih"
  size_t component = 0;  // within the node's (layer's) value
  double value = 0;      // NaN or ±infinity

  // Computed earlier: by sequence, then token, then rank.
  bool before(const NonFiniteSite& other) const;
  // "token 2: node 4 (Linear) overflowed to +infinity (component 0)", the sequence first
  // when `withSequence`.
  std::string describe(bool withSequence) const;
};

// Keeps `site` in `first` when it came earlier than what `first` holds (or it holds none).
void keepEarliest(std::optional<NonFiniteSite>& first, const NonFiniteSite& site);

// The index of the first value that is not finite, or values.size(): one branch-free
// pass per block (the common all-finite case), a search only in a block that has one.
size_t firstNonFinite(std::span<const float> values);
size_t firstNonFinite(std::span<const double> values);

}  // namespace lsrl
