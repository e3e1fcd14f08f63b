// The selective-copying task of minGRU/minLSTM (docs/spec/seed-models.md §3.6, §5.3 "Synthetic
// inputs") and the "hold" toy, as seeded generators of token ids plus targets.
//
// Tokens [E] (the spec gives only "vocabulary 16"): ids 0..vocabulary−1, where 0 is the
// noise token, vocabulary − 1 the marker that asks for the next datum, and 1..vocabulary−2
// the data tokens (14 values for the default 16). A sample is `length` positions of noise
// with `dataTokens` data tokens at distinct uniformly drawn positions (values uniform),
// followed by `dataTokens` markers: the k-th marker's target is the k-th data token (in
// order of position); every other position has no target (−1). The model reads the
// tokens as one-hot rows of width `vocabulary` (oneHot of memory_horizon.h) and embeds
// them itself (a bias-free Linear, i.e. a lookup), so the gates of layer 1 are a function
// of the token id alone (§5.3 "depth effect").
// Defaults at the spec's small scale: length 64, 4 data tokens (the paper: 4096, 16).
//
// "hold" toy (§5.3): the noisy part alone; its target at each position is the most recent
// data token so far (−1 before the first). A one-layer model whose gate is open (z ≈ 1)
// on data tokens and shut on noise latches it (MinGruModel::hold, MinLstmModel::hold).
//
//   SelectiveCopyParams p;                              // vocabulary 16, length 64, 4 data
//   SelectiveCopySample s = selectiveCopySample(p, 7);  // seed 7
//   Sequence x = oneHot(s.tokens, p.vocabulary);        // [68][16]
//   // s.targets[64..67] are the data tokens at s.positions, in order
#pragma once

#include <cstdint>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

struct SelectiveCopyParams {
  int vocabulary = 16;
  int length = 64;     // the noisy part, where the data tokens are
  int dataTokens = 4;  // data tokens to copy = markers appended

  int noiseToken() const { return 0; }
  int markerToken() const { return vocabulary - 1; }
  int dataValues() const { return vocabulary - 2; }  // ids 1..vocabulary−2
  int total() const { return length + dataTokens; }
};

// Throws lsrl::Error "selective copying task: ..." for vocabulary < 3 or > 10^6, a
// negative length or data-token count, more data tokens than positions, or a sample of
// more than 10^6 tokens.
void checkSelectiveCopyParams(const SelectiveCopyParams& p);

struct SelectiveCopySample {
  std::vector<int> tokens;     // [length + dataTokens] ids
  std::vector<int> positions;  // [dataTokens] where the data tokens are, increasing
  std::vector<int> targets;    // [length + dataTokens]: the datum at each marker, else −1
};

// Deterministic per (params, seed) on every platform.
SelectiveCopySample selectiveCopySample(const SelectiveCopyParams& p, uint64_t seed);

// The "hold" toy's tokens (the noisy part of the sample of `seed`) and its targets.
std::vector<int> holdTokens(const SelectiveCopyParams& p, uint64_t seed);
std::vector<int> holdTargets(const std::vector<int>& tokens, const SelectiveCopyParams& p);

}  // namespace lsrl::seed_models
