#include "core/programs/prompts.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "core/util/error.h"

namespace lsrl {

namespace {

std::string listInts(const std::vector<int>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

void checkDims(int n, int m, int N, const char* fn) {
  if (n < 1) throw Error(std::string(fn) + ": n must be at least 1, got " + std::to_string(n));
  if (m < 1) throw Error(std::string(fn) + ": m must be at least 1, got " + std::to_string(m));
  if (N < 1) throw Error(std::string(fn) + ": N must be at least 1, got " + std::to_string(N));
}

ExactVector toExact(const std::vector<double>& v) {
  ExactVector r;
  r.reserve(v.size());
  for (double d : v) r.emplace_back(d);
  return r;
}

std::vector<double> toDouble(const ExactVector& v) {
  std::vector<double> r;
  r.reserve(v.size());
  for (const Exact& e : v) r.push_back(e.toDouble());
  return r;
}

// The k with k/N < x <= (k+1)/N, for x in (0, 1].
int cellOfCoordinate(const Exact& x, int N, size_t coordinate) {
  if (x.sign() <= 0 || x > Exact(1)) {
    throw Error("vec2vec query: coordinate " + std::to_string(coordinate) + " is " + x.toString() +
                ", outside (0, 1]");
  }
  const Exact xN = x * Exact(N);
  int k = static_cast<int>(std::ceil(xN.toDouble())) - 1;
  if (k < 0) k = 0;
  if (k > N - 1) k = N - 1;
  // Correct a rounding of the double estimate with exact comparisons.
  while (k > 0 && xN <= Exact(k)) --k;
  while (k < N - 1 && xN > Exact(k + 1)) ++k;
  return k;
}

}  // namespace

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int uniformInt(std::mt19937_64& rng, int lo, int hi) {
  if (lo > hi) {
    throw Error("uniformInt: empty range " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const uint64_t limit = max - (max % range + 1) % range;  // accept draws <= limit
  uint64_t r;
  do {
    r = rng();
  } while (r > limit);
  return static_cast<int>(static_cast<int64_t>(lo) + static_cast<int64_t>(r % range));
}

long long vec2vecCellCount(int n, int N) {
  checkDims(n, 1, N, "vec2vecCellCount");
  long long count = 1;
  for (int i = 0; i < n; ++i) {
    count *= N;
    if (count > kMaxPromptCells) {
      throw Error("vec2vec prompt: N^n = " + std::to_string(N) + "^" + std::to_string(n) +
                  " cells is more than the limit of " + std::to_string(kMaxPromptCells));
    }
  }
  return count;
}

std::vector<int> vec2vecCellIndex(long long cell, int n, int N) {
  std::vector<int> index(static_cast<size_t>(n));
  for (int j = n - 1; j >= 0; --j) {
    index[static_cast<size_t>(j)] = static_cast<int>(cell % N);
    cell /= N;
  }
  return index;
}

ExactVector vec2vecCellCentre(const std::vector<int>& index, int N) {
  ExactVector c;
  c.reserve(index.size());
  for (int i : index) c.push_back(Exact::rational(2LL * i + 1, 2LL * N));
  return c;
}

ExactVector vec2vecCellCorner(const std::vector<int>& index, int N) {
  ExactVector c;
  c.reserve(index.size());
  for (int i : index) c.push_back(Exact::rational(i, N));
  return c;
}

ExactVector vec2vecQueryToken(const ExactVector& x, int m) {
  if (x.empty()) throw Error("vec2vec query: the query has no coordinates");
  if (m < 1) throw Error("vec2vec query: m must be at least 1, got " + std::to_string(m));
  ExactVector t = x;
  t.resize(x.size() + static_cast<size_t>(m) + 1);
  return t;
}

ExactSequence vec2vecPromptFromGrid(int n, int m, int N, const std::vector<ExactVector>& values) {
  checkDims(n, m, N, "vec2vec prompt");
  const long long cells = vec2vecCellCount(n, N);
  if (static_cast<long long>(values.size()) != cells) {
    throw Error("vec2vec prompt: expected " + std::to_string(cells) +
                " cell values (N^n = " + std::to_string(N) + "^" + std::to_string(n) + "), got " +
                std::to_string(values.size()));
  }
  ExactSequence tokens;
  tokens.reserve(static_cast<size_t>(cells));
  const Exact width = Exact::rational(1, N);
  for (long long cell = 0; cell < cells; ++cell) {
    const ExactVector& value = values[static_cast<size_t>(cell)];
    const std::vector<int> index = vec2vecCellIndex(cell, n, N);
    if (static_cast<int>(value.size()) != m) {
      throw Error("vec2vec prompt: the value of cell " + listInts(index) + " has " +
                  std::to_string(value.size()) + " entries, expected m = " + std::to_string(m));
    }
    ExactVector token;
    token.reserve(static_cast<size_t>(1 + n + m));
    token.push_back(width);
    for (const Exact& c : vec2vecCellCorner(index, N)) token.push_back(c);
    for (const Exact& v : value) token.push_back(v);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

ExactSequence vec2vecPromptTokens(int n, int m, int N, const ExactTargetFunction& f) {
  checkDims(n, m, N, "vec2vec prompt");
  const long long cells = vec2vecCellCount(n, N);
  std::vector<ExactVector> values;
  values.reserve(static_cast<size_t>(cells));
  for (long long cell = 0; cell < cells; ++cell) {
    values.push_back(f(vec2vecCellCentre(vec2vecCellIndex(cell, n, N), N)));
  }
  return vec2vecPromptFromGrid(n, m, N, values);
}

ExactSequence vec2vecPromptTokens(int n, int m, int N, const TargetFunction& f) {
  return vec2vecPromptTokens(n, m, N, ExactTargetFunction([&f](const ExactVector& centre) {
                               return toExact(f(toDouble(centre)));
                             }));
}

ExactSequence vec2vecInput(const ExactVector& x, int m, const ExactSequence& prompt) {
  ExactSequence input;
  input.reserve(prompt.size() + 1);
  input.push_back(vec2vecQueryToken(x, m));
  const size_t width = input.front().size();
  for (size_t i = 0; i < prompt.size(); ++i) {
    if (prompt[i].size() != width) {
      throw Error("vec2vec input: prompt token " + std::to_string(i) + " has width " +
                  std::to_string(prompt[i].size()) +
                  ", expected 1 + n + m = " + std::to_string(width));
    }
    input.push_back(prompt[i]);
  }
  return input;
}

ExactSequence vec2vecInput(const ExactVector& x, int n, int m, int N,
                           const ExactTargetFunction& f) {
  if (static_cast<int>(x.size()) != n) {
    throw Error("vec2vec input: the query has " + std::to_string(x.size()) +
                " coordinates, expected n = " + std::to_string(n));
  }
  return vec2vecInput(x, m, vec2vecPromptTokens(n, m, N, f));
}

ExactSequence vec2vecInput(const std::vector<double>& x, int n, int m, int N,
                           const TargetFunction& f) {
  if (static_cast<int>(x.size()) != n) {
    throw Error("vec2vec input: the query has " + std::to_string(x.size()) +
                " coordinates, expected n = " + std::to_string(n));
  }
  return vec2vecInput(toExact(x), m, vec2vecPromptTokens(n, m, N, f));
}

bool queryIsValid(const ExactVector& x, int N, const Exact& mu) {
  if (N < 1 || mu.sign() <= 0 || x.empty()) return false;
  const Exact margin = Exact(1) / mu;
  for (size_t j = 0; j < x.size(); ++j) {
    const Exact& v = x[j];
    if (!(v > margin) || v > Exact(1)) return false;
    const int k = cellOfCoordinate(v, N, j);
    // The nearest interior walls are k/N (below) and (k+1)/N (above).
    if (k >= 1 && v - Exact::rational(k, N) < margin) return false;
    if (k + 1 <= N - 1 && Exact::rational(k + 1, N) - v < margin) return false;
  }
  return true;
}

bool queryIsValid(const std::vector<double>& x, int N, const Exact& mu) {
  for (double d : x) {
    if (!std::isfinite(d)) return false;
  }
  return queryIsValid(toExact(x), N, mu);
}

std::vector<int> vec2vecQueryCell(const ExactVector& x, int N) {
  if (N < 1) throw Error("vec2vec query: N must be at least 1, got " + std::to_string(N));
  std::vector<int> index;
  index.reserve(x.size());
  for (size_t j = 0; j < x.size(); ++j) index.push_back(cellOfCoordinate(x[j], N, j));
  return index;
}

ExactVector vec2vecExpected(const ExactVector& x, int N, const ExactTargetFunction& f) {
  return f(vec2vecCellCentre(vec2vecQueryCell(x, N), N));
}

std::vector<double> vec2vecExpected(const std::vector<double>& x, int N, const TargetFunction& f) {
  return f(toDouble(vec2vecCellCentre(vec2vecQueryCell(toExact(x), N), N)));
}

TargetFunction smoothTestFunction(int n, int m, uint64_t seed, int controlPoints,
                                  double smoothness) {
  checkDims(n, m, 1, "smoothTestFunction");
  if (controlPoints < 1) {
    throw Error("smoothTestFunction: needs at least one control point, got " +
                std::to_string(controlPoints));
  }
  if (!(smoothness > 0)) throw Error("smoothTestFunction: smoothness must be positive");
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> points(static_cast<size_t>(controlPoints));
  std::vector<std::vector<double>> values(static_cast<size_t>(controlPoints));
  for (auto& p : points) {
    for (int j = 0; j < n; ++j) p.push_back(uniform01(rng) * 1.2 - 0.1);
  }
  for (auto& v : values) {
    for (int j = 0; j < m; ++j) v.push_back(uniform01(rng) * 6.0 - 3.0);
  }
  return [n, m, points, values, smoothness](const std::vector<double>& x) {
    if (static_cast<int>(x.size()) != n) {
      throw Error("smooth test function: expected " + std::to_string(n) + " coordinates, got " +
                  std::to_string(x.size()));
    }
    std::vector<double> weights;
    weights.reserve(points.size());
    double total = 0;
    for (const auto& p : points) {
      double d2 = 0;
      for (int j = 0; j < n; ++j) {
        const double d = x[static_cast<size_t>(j)] - p[static_cast<size_t>(j)];
        d2 += d * d;
      }
      const double w = std::exp(-std::sqrt(d2) / smoothness);
      weights.push_back(w);
      total += w;
    }
    std::vector<double> out(static_cast<size_t>(m), 0.0);
    for (size_t k = 0; k < points.size(); ++k) {
      for (int j = 0; j < m; ++j) {
        out[static_cast<size_t>(j)] += weights[k] / total * values[k][static_cast<size_t>(j)];
      }
    }
    return out;
  };
}

std::vector<double> randomValidQuery(int n, int N, const Exact& mu, std::mt19937_64& rng) {
  checkDims(n, 1, N, "randomValidQuery");
  std::vector<double> x(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    bool found = false;
    for (int attempt = 0; attempt < 10000 && !found; ++attempt) {
      x[static_cast<size_t>(j)] = 1.0 - uniform01(rng);  // (0, 1]
      found = queryIsValid(std::vector<double>{x[static_cast<size_t>(j)]}, N, mu);
    }
    if (!found) {
      throw Error("randomValidQuery: no valid coordinate found for N = " + std::to_string(N) +
                  ", mu = " + mu.toString() + " (cells of width 1/N leave no room 1/mu from " +
                  "their walls)");
    }
  }
  return x;
}

void validateDictionary(const Dictionary& dict, const std::vector<int>& query, int L, int vocab) {
  if (L < 1) throw Error("tok2tok dictionary: L must be at least 1, got " + std::to_string(L));
  if (dict.empty()) throw Error("tok2tok dictionary: the dictionary is empty");
  auto checkTokens = [&](const std::vector<int>& tokens, const std::string& what) {
    if (static_cast<int>(tokens.size()) != L) {
      throw Error("tok2tok dictionary: " + what + " " + listInts(tokens) + " has length " +
                  std::to_string(tokens.size()) + ", expected L = " + std::to_string(L));
    }
    for (int t : tokens) {
      if (t < 0 || (vocab > 0 && t >= vocab)) {
        throw Error("tok2tok dictionary: " + what + " " + listInts(tokens) + " has token " +
                    std::to_string(t) + ", outside the vocabulary 0.." +
                    (vocab > 0 ? std::to_string(vocab - 1) : std::string("")));
      }
    }
  };
  std::set<std::vector<int>> keys;
  for (size_t i = 0; i < dict.size(); ++i) {
    checkTokens(dict[i].key, "key of entry " + std::to_string(i));
    checkTokens(dict[i].value, "value of entry " + std::to_string(i));
    if (!keys.insert(dict[i].key).second) {
      throw Error("tok2tok dictionary: key " + listInts(dict[i].key) + " of entry " +
                  std::to_string(i) + " repeats an earlier key; keys must be unique");
    }
  }
  checkTokens(query, "query");
  if (!keys.count(query)) {
    throw Error("tok2tok dictionary: the query " + listInts(query) +
                " is not among the dictionary's keys");
  }
}

ExactSequence tok2tokInput(const Dictionary& dict, const std::vector<int>& query, int L,
                           int vocab) {
  validateDictionary(dict, query, L, vocab);
  std::vector<int> values;
  values.reserve(static_cast<size_t>(L) * (2 * dict.size() + 1));
  appendTok2tokTokens(dict, query, values);
  ExactSequence tokens;
  tokens.reserve(values.size());
  for (int t : values) tokens.push_back({Exact(t)});
  return tokens;
}

void appendTok2tokTokens(const Dictionary& dict, const std::vector<int>& query,
                         std::vector<int>& out) {
  out.insert(out.end(), query.begin(), query.end());
  for (const DictionaryEntry& e : dict) {
    out.insert(out.end(), e.key.begin(), e.key.end());
    out.insert(out.end(), e.value.begin(), e.value.end());
  }
}

std::vector<int> tok2tokExpected(const Dictionary& dict, const std::vector<int>& query, int L,
                                 int vocab) {
  validateDictionary(dict, query, L, vocab);
  for (const DictionaryEntry& e : dict) {
    if (e.key == query) return e.value;
  }
  throw Error("tok2tok dictionary: the query " + listInts(query) + " is not among the keys");
}

Tok2tokCase randomDictionary(int K, int L, int V, uint64_t seed) {
  if (L < 1) throw Error("randomDictionary: L must be at least 1, got " + std::to_string(L));
  if (V < 1) throw Error("randomDictionary: V must be at least 1, got " + std::to_string(V));
  if (K < 1) throw Error("randomDictionary: K must be at least 1, got " + std::to_string(K));
  long double keySpace = 1;
  for (int i = 0; i < L; ++i) keySpace *= V;
  if (static_cast<long double>(K) > keySpace) {
    throw Error("randomDictionary: K = " + std::to_string(K) + " unique keys do not fit in V^L = " +
                std::to_string(V) + "^" + std::to_string(L) + " possible keys");
  }
  std::mt19937_64 rng(seed);
  auto draw = [&] {
    std::vector<int> tokens(static_cast<size_t>(L));
    for (int& t : tokens) t = uniformInt(rng, 0, V - 1);
    return tokens;
  };
  Tok2tokCase c;
  std::set<std::vector<int>> keys;
  while (static_cast<int>(c.dictionary.size()) < K) {
    std::vector<int> key = draw();
    if (!keys.insert(key).second) continue;
    std::vector<int> value = draw();
    c.dictionary.push_back({std::move(key), std::move(value)});
  }
  c.query = c.dictionary[static_cast<size_t>(uniformInt(rng, 0, K - 1))].key;
  return c;
}

}  // namespace lsrl
