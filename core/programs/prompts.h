// Prompt builders, validity checks and expected answers for the paper's programs
// (docs/spec/ua-programs.md §4, §C), plus seeded test data. Sequences are [token][feature], the
// same layout as core/io/sequence_file.h.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "core/graph/matrix.h"

namespace lsrl {

using ExactSequence = std::vector<ExactVector>;  // [token][feature]

// ---- Reproducible random numbers -------------------------------------------------
// std::uniform_*_distribution are implementation-defined; these use only the raw
// 64-bit output of std::mt19937_64, so every platform draws the same values.
double uniform01(std::mt19937_64& rng);                // [0, 1), 53 bits
int uniformInt(std::mt19937_64& rng, int lo, int hi);  // [lo, hi], rejection sampling

// ---- vec2vec ----------------------------------------------------------------------
using TargetFunction = std::function<std::vector<double>(const std::vector<double>&)>;
using ExactTargetFunction = std::function<ExactVector(const ExactVector&)>;

// Cells in lexicographic order of their index tuples (the last index varies fastest).
// The cell with indices (i_1..i_n) is (i/N, (i+1)/N] in every coordinate.
long long vec2vecCellCount(int n, int N);  // N^n; throws when over kMaxPromptCells
constexpr long long kMaxPromptCells = 1LL << 22;
std::vector<int> vec2vecCellIndex(long long cell, int n, int N);  // lexicographic position
ExactVector vec2vecCellCentre(const std::vector<int>& index, int N);
ExactVector vec2vecCellCorner(const std::vector<int>& index, int N);

// The query token [x; 0 (m+1)].
ExactVector vec2vecQueryToken(const ExactVector& x, int m);
// One token per cell [1/N, lower corner, f(centre)], without the query.
ExactSequence vec2vecPromptTokens(int n, int m, int N, const ExactTargetFunction& f);
// f values in double are converted exactly (Exact(double)).
ExactSequence vec2vecPromptTokens(int n, int m, int N, const TargetFunction& f);
// f given as its values at the cell centres, one ExactVector (m) per cell in the
// lexicographic order above.
ExactSequence vec2vecPromptFromGrid(int n, int m, int N, const std::vector<ExactVector>& values);
// The full input [query; cells].
ExactSequence vec2vecInput(const ExactVector& x, int m, const ExactSequence& prompt);
ExactSequence vec2vecInput(const ExactVector& x, int n, int m, int N, const ExactTargetFunction& f);
ExactSequence vec2vecInput(const std::vector<double>& x, int n, int m, int N,
                           const TargetFunction& f);

// Every coordinate in (1/μ, 1] and at least 1/μ from every interior cell wall k/N
// (0 < k < N). Within 1/μ of a wall the construction may answer with another cell's
// value or 0 (docs/spec/ua-programs.md §4).
bool queryIsValid(const ExactVector& x, int N, const Exact& mu);
bool queryIsValid(const std::vector<double>& x, int N, const Exact& mu);
// The cell that holds x (half-open (ℓ, ℓ+1/N] per coordinate); x must be in (0, 1]^n.
std::vector<int> vec2vecQueryCell(const ExactVector& x, int N);
// The expected answer: f at the centre of the query's cell.
ExactVector vec2vecExpected(const ExactVector& x, int N, const ExactTargetFunction& f);
std::vector<double> vec2vecExpected(const std::vector<double>& x, int N, const TargetFunction& f);

// A smooth random function [0,1]^n -> R^m: a softmin-weighted mix (weights
// exp(-|x - p_k| / smoothness), normalised) of random control values in [-3, 3]^m at
// random control points in [-0.1, 1.1]^n. Deterministic from the seed.
TargetFunction smoothTestFunction(int n, int m, uint64_t seed, int controlPoints = 5,
                                  double smoothness = 1.0);
// A query uniformly drawn from (0,1]^n that passes queryIsValid (redraws until it does;
// throws if none can, e.g. 1/N <= 2/μ).
std::vector<double> randomValidQuery(int n, int N, const Exact& mu, std::mt19937_64& rng);

// ---- tok2tok ----------------------------------------------------------------------
struct DictionaryEntry {
  std::vector<int> key;
  std::vector<int> value;
  friend bool operator==(const DictionaryEntry&, const DictionaryEntry&) = default;
};
using Dictionary = std::vector<DictionaryEntry>;

// Keys unique, every key and value of length L, the query of length L and among the
// keys, tokens in 0..V-1 (vocab > 0) or >= 0 (vocab = 0). Throws lsrl::Error naming
// the entry and what is wrong.
void validateDictionary(const Dictionary& dict, const std::vector<int>& query, int L,
                        int vocab = 0);
// q, k1, v1, ..., kK, vK as width-1 tokens (validates first).
ExactSequence tok2tokInput(const Dictionary& dict, const std::vector<int>& query, int L,
                           int vocab = 0);
// The same token values, unchecked, appended to `out` (for batches of prompts known valid).
void appendTok2tokTokens(const Dictionary& dict, const std::vector<int>& query,
                         std::vector<int>& out);
// The value stored under the query (validates first).
std::vector<int> tok2tokExpected(const Dictionary& dict, const std::vector<int>& query, int L,
                                 int vocab = 0);

struct Tok2tokCase {
  Dictionary dictionary;
  std::vector<int> query;
};
// K entries with unique random keys, random values, tokens in 0..V-1, the query drawn
// from the keys. Needs 1 <= K <= V^L.
Tok2tokCase randomDictionary(int K, int L, int V, uint64_t seed);

}  // namespace lsrl
