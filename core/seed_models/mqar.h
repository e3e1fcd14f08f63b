// Recall with interference (MQAR-style), a token task of the Lattice token model
// (docs/models.md, "Recall with interference (mqar)"): key–value writes, queries and noise
// interleaved at random, where later writes give keys new values and a query asks for the
// value written last. It measures what a fixed-size state keeps when its contents must be
// overwritten, and how recall falls with the distance since the write (the ages).
//
// Vocabulary (one-hot input rows of width keys + values + 1 + noise): key tokens
// 0..keys−1, value tokens keys..keys+values−1, the QUERY token keys+values, noise tokens
// keys+values+1.. (none when noise = 0). Events:
//   write       [key, value]   the first min(writes, keys) writes store distinct keys in
//                              random order, later ones give a uniform key a uniform value
//                              other than its current one (the interference)
//   query       [QUERY, key]   a uniform key among those written before it; the target at
//                              the key token is the token id of the key's latest value
//   distractor  [noise]        a uniform noise token
// `writes` writes, `queries` queries and length − 2·writes − 2·queries distractors, in a
// uniformly shuffled order whose first event is a write (the first write is moved to the
// front when the shuffle starts otherwise). Targets are token ids (classes 0..keys+values−1
// of the output, so d_out ≥ keys + values), −1 elsewhere. Age at a target: the tokens
// strictly between the latest write's value token and the query's key token (≥ 1: at least
// the QUERY token), −1 elsewhere.
//
//   MqarParams p;                               // 8 keys, 8 values, 16 writes, 8 queries
//   MqarSample s = mqarSample(p, 7);            // s.tokens [64], s.targets, s.ages
//   Sequence x = oneHot(s.tokens, p.vocabulary());   // [64][21]
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace lsrl::seed_models {

struct MqarParams {
  int keys = 8;     // "mqar_keys"
  int values = 8;   // "mqar_values"
  int writes = 16;  // "mqar_writes"
  int queries = 8;  // "mqar_queries"
  int noise = 4;    // "mqar_noise": distinct noise tokens
  int length = 64;  // "mqar_length": tokens per sample

  int queryToken() const { return keys + values; }
  int vocabulary() const { return keys + values + 1 + noise; }
  int distractors() const { return length - 2 * writes - 2 * queries; }
};

struct MqarSample {
  std::vector<int> tokens;   // [length] token ids
  std::vector<int> targets;  // [length]: the latest value's token id at each query's key
  std::vector<int> ages;     // [length]: at each target, tokens since that value; else −1
};

// The mqar_* keys of a model config (missing keys: the defaults above). Throws lsrl::Error
// "lattice config: ..." for a key that is not an integer in 0..10^6.
MqarParams mqarParams(const nlohmann::json& config);
// Throws lsrl::Error "mqar: ..." for keys, values or writes < 1, queries or noise < 0, more
// writes and queries than the length holds, distractors to place without noise tokens, or a
// sample of more than 10^7 one-hot entries.
void checkMqarParams(const MqarParams& p);
// Throws lsrl::Error "mqar: ..." unless d_in is the vocabulary and d_out holds every key
// and value token.
void checkMqarWidths(const MqarParams& p, int dIn, int dOut);
// Deterministic per (params, seed) on every platform.
MqarSample mqarSample(const MqarParams& p, uint64_t seed);

}  // namespace lsrl::seed_models
