// Associative recall, the task the Lattice seed model is trained on (docs/models.md,
// "Associative recall"): a sequence stores `pairs` (key, value) pairs, then asks for the
// value of `queries` of the stored keys. It tests how much a fixed-size state (m slots)
// keeps as the load grows past m, the question Lattice's orthogonal updates address.
//
// Tokens are rows of width keys + values: a write is [one-hot key | one-hot value], a
// query is [one-hot key | 0]. The keys of one sequence are distinct (drawn from `keys`
// ids), values are uniform and may repeat. Queries ask for distinct stored pairs while
// there are enough, in random order. Targets: the value id at each query, −1 at writes.
// Ages: at each query, the tokens since its pair's write (query position − write position,
// ≥ 1), −1 at writes.
//
//   AssocRecallParams p{.keys = 16, .values = 8, .pairs = 6, .queries = 4};
//   AssocRecallSample s = assocRecallSample(p, 7);   // s.rows [10][24], s.targets [10]
#pragma once

#include <cstdint>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

struct AssocRecallParams {
  int keys = 16;    // key ids 0..keys−1
  int values = 8;   // value ids 0..values−1
  int pairs = 4;    // (key, value) writes
  int queries = 4;  // reads after the writes

  int width() const { return keys + values; }
  int length() const { return pairs + queries; }
};

struct AssocRecallSample {
  Sequence rows;             // [pairs + queries][keys + values]
  std::vector<int> targets;  // value id at each query, −1 at writes
  std::vector<int> ages;     // tokens since the queried pair's write, −1 at writes
};

// Throws lsrl::Error "associative recall: ..." for keys or values < 1, pairs < 1, more
// pairs than keys, queries < 0, or a sample of more than 10^6 entries.
void checkAssocRecallParams(const AssocRecallParams& p);
// Deterministic per (params, seed) on every platform.
AssocRecallSample assocRecallSample(const AssocRecallParams& p, uint64_t seed);

}  // namespace lsrl::seed_models
