#include "core/seed_models/looped_tasks.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

template <class T>
void shuffle(Rng& rng, std::vector<T>& v) {  // Fisher–Yates with our portable Rng
  for (size_t i = v.size(); i > 1; --i)
    std::swap(v[i - 1], v[sz(nextBelow(rng, static_cast<int>(i)))]);
}

std::vector<int> permutation(Rng& rng, int n) {
  std::vector<int> p(sz(n));
  std::iota(p.begin(), p.end(), 0);
  shuffle(rng, p);
  return p;
}

void need(bool ok, const std::string& task, const std::string& what) {
  if (!ok) throw Error("looped task \"" + task + "\": " + what);
}

LoopedTaskSample random(const LoopedTaskParams& p, int width, Rng& rng) {
  LoopedTaskSample s;
  for (int n = 0; n < p.tokens; ++n) {
    Vector row(sz(width));
    for (double& x : row) x = rng.normal();
    s.input.push_back(row);
  }
  s.text = std::to_string(p.tokens) + " random tokens";
  return s;
}

LoopedTaskSample contextualMapping(const LoopedTaskParams& p, int width, Rng& rng) {
  need(p.tokens <= p.idBase, "contextual_mapping",
       "task_tokens " + std::to_string(p.tokens) + " exceeds id_base " + std::to_string(p.idBase) +
           " (the IDs must be distinct)");
  std::vector<int> ids = permutation(rng, p.idBase);
  ids.resize(sz(p.tokens));
  std::vector<int> sorted = ids;
  std::sort(sorted.rbegin(), sorted.rend());
  double id = 0;
  for (const int z : sorted) id = id * p.idBase + z;
  LoopedTaskSample s;
  s.text = "ids";
  for (const int z : ids) {
    Vector row(sz(width), 0.0);
    row[0] = row[1] = z;
    row[2] = 1;
    s.input.push_back(row);
    s.targets.push_back(id);
    s.text += " " + std::to_string(z);
  }
  return s;
}

LoopedTaskSample sudoku(const LoopedTaskParams& p, int width, Rng& rng) {
  const int b = p.sudokuBox, n = b * b;
  // A pattern solution, then symmetries that keep it valid: digits, rows within a band,
  // bands, columns within a stack, stacks.
  auto shuffledLines = [&] {
    std::vector<int> lines;
    for (const int band : permutation(rng, b))
      for (const int r : permutation(rng, b)) lines.push_back(band * b + r);
    return lines;
  };
  const std::vector<int> digits = permutation(rng, n), rows = shuffledLines(),
                         cols = shuffledLines();
  std::vector<int> solution(sz(n * n));
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const int R = rows[sz(r)], C = cols[sz(c)];
      solution[sz(r * n + c)] = digits[sz((b * (R % b) + R / b + C) % n)] + 1;
    }
  std::vector<int> grid = solution;
  std::vector<int> cells = permutation(rng, n * n);
  for (int i = 0; i < p.sudokuBlanks; ++i) grid[sz(cells[sz(i)])] = 0;
  LoopedTaskSample s;
  for (int cell = 0; cell < n * n; ++cell) {
    Vector row(sz(width), 0.0);
    row[sz(grid[sz(cell)])] = 1;
    row[sz(n + 1 + cell / n)] = 1;
    row[sz(2 * n + 1 + cell % n)] = 1;
    s.input.push_back(row);
    s.targets.push_back(solution[sz(cell)]);
    s.text += static_cast<char>('0' + grid[sz(cell)]);
  }
  return s;
}

// Countdown tokens: a number (≥ 0) or one of + − × ÷ = (codes −1 … −5), or a blank.
constexpr int kBlank = -6;
const char* kSymbols[] = {"+", "-", "*", "/", "="};

LoopedTaskSample countdown(int width, Rng& rng) {
  std::vector<int> numbers, chain;
  int target = 0;
  for (int attempt = 0;; ++attempt) {
    need(attempt < 100000, "countdown", "no solvable draw found");
    numbers.clear();
    for (int i = 0; i < 4; ++i) numbers.push_back(1 + nextBelow(rng, 99));
    std::vector<int> pool = numbers;
    chain.clear();
    bool ok = true;
    while (ok && pool.size() > 1) {
      const int i = nextBelow(rng, static_cast<int>(pool.size()));
      int j = nextBelow(rng, static_cast<int>(pool.size()) - 1);
      if (j >= i) ++j;
      const int a = pool[sz(i)], b = pool[sz(j)], op = nextBelow(rng, 4);
      long long c = 0;
      if (op == 0) c = a + b;
      if (op == 1) c = a - b;
      if (op == 2) c = static_cast<long long>(a) * b;
      if (op == 3) c = (b != 0 && a % b == 0) ? a / b : -1;
      ok = c >= 0 && c <= 100000;
      chain.insert(chain.end(), {a, -(op + 1), b, -5, static_cast<int>(c)});
      pool.erase(pool.begin() + std::max(i, j));
      pool.erase(pool.begin() + std::min(i, j));
      pool.push_back(static_cast<int>(c));
    }
    target = pool.back();
    if (ok && target >= 10 && target <= 100) break;
  }
  std::vector<int> tokens = numbers;
  tokens.push_back(target);
  std::vector<int> output = tokens;
  output.insert(output.end(), chain.begin(), chain.end());
  tokens.resize(output.size(), kBlank);
  LoopedTaskSample s;
  auto text = [](int t) {
    return t >= 0 ? std::to_string(t) : t == kBlank ? std::string("0") : kSymbols[-t - 1];
  };
  for (size_t n = 0; n < tokens.size(); ++n) {
    Vector row(sz(width), 0.0);
    const int t = tokens[n];
    if (t >= 0) {
      row[0] = t / 100.0;
      row[1] = 1;
    } else {
      row[t == kBlank ? 7 : sz(1 - t)] = 1;
    }
    s.input.push_back(row);
    s.targets.push_back(output[n]);
    s.text += (n ? " " : "") + text(t);
  }
  s.text += " →";
  for (size_t n = 5; n < output.size(); ++n) s.text += " " + text(output[n]);
  return s;
}

std::string alphabet(Rng& rng) {
  std::vector<int> letters = permutation(rng, 26);
  std::string a;
  for (int i = 0, k = 3 + nextBelow(rng, 8); i < k; ++i)
    a += static_cast<char>('a' + letters[sz(i)]);
  return a;
}

std::string randomString(Rng& rng, const std::string& letters, int length) {
  std::string s;
  for (int i = 0; i < length; ++i)
    s += letters[sz(nextBelow(rng, static_cast<int>(letters.size())))];
  return s;
}

LoopedTaskSample stringPair(const std::string& a, const std::string& b, double answer, int width) {
  LoopedTaskSample s;
  auto add = [&](int channel, double inB) {
    Vector row(sz(width), 0.0);
    row[sz(channel)] = 1;
    row[27] = inB;
    s.input.push_back(row);
    s.targets.push_back(answer);
  };
  for (const char c : a) add(c - 'a', 0);
  add(26, 0);
  for (const char c : b) add(c - 'a', 1);
  s.text = a + "|" + b + " → " + std::to_string(static_cast<int>(answer));
  return s;
}

LoopedTaskSample editDistanceTask(const LoopedTaskParams& p, int width, Rng& rng) {
  const int n = p.stringLength;
  const std::string letters = alphabet(rng), a = randomString(rng, letters, n);
  std::string b;
  if (rng.uniform() < 0.4) {
    b = randomString(rng, letters, std::max(1, n - 3 + nextBelow(rng, 6)));
  } else {
    b = a;
    for (int e = 0, edits = 1 + nextBelow(rng, 3); e < edits; ++e) {
      const int kind = b.size() <= 1 ? 1 : nextBelow(rng, 3);  // 0 delete, 1 insert, 2 replace
      const size_t at = sz(nextBelow(rng, static_cast<int>(b.size()) + (kind == 1)));
      const char c = letters[sz(nextBelow(rng, static_cast<int>(letters.size())))];
      if (kind == 0) b.erase(at, 1);
      if (kind == 1) b.insert(at, 1, c);
      if (kind == 2) b[at] = c;
    }
  }
  return stringPair(a, b, editDistance(a, b), width);
}

LoopedTaskSample lcsTask(const LoopedTaskParams& p, int width, Rng& rng) {
  const std::string letters = alphabet(rng);
  const std::string a = randomString(rng, letters, p.stringLength),
                    b = randomString(rng, letters, p.stringLength);
  return stringPair(a, b, lcsLength(a, b), width);
}

LoopedTaskSample iclDecisionTree(const LoopedTaskParams& p, int width, Rng& rng) {
  const int dim = p.iclDim, depth = 4;
  std::vector<int> split(15);  // heap order: node i has children 2i+1, 2i+2
  for (int& c : split) c = nextBelow(rng, dim);
  std::vector<double> leaf(16);
  for (double& v : leaf) v = rng.normal();
  auto f = [&](const Vector& x) {
    int node = 0;
    for (int level = 0; level < depth; ++level)
      node = 2 * node + (x[sz(split[sz(node)])] > 0 ? 2 : 1);
    return leaf[sz(node - 15)];
  };
  LoopedTaskSample s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int k = 0; k <= p.iclPoints; ++k) {
    Vector x(sz(dim));
    for (double& v : x) v = rng.normal();
    Vector row(sz(width), 0.0);
    std::copy(x.begin(), x.end(), row.begin());
    row[sz(dim + 1)] = 1;
    s.input.push_back(row);
    s.targets.push_back(f(x));
    if (k == p.iclPoints) break;  // x_test: no y token after it
    Vector y(sz(width), 0.0);
    y[sz(dim)] = f(x);
    y[sz(dim + 2)] = 1;
    s.input.push_back(y);
    s.targets.push_back(nan);
  }
  s.text = "decision tree, dim " + std::to_string(dim) + ", " + std::to_string(p.iclPoints) +
           " examples, f(x_test) = " + std::to_string(s.targets.back());
  return s;
}

}  // namespace

std::vector<std::string> loopedTaskNames() {
  return {"random", "contextual_mapping", "sudoku", "countdown", "edit_distance",
          "lcs",    "icl_decision_tree"};
}

int loopedTaskWidth(const std::string& task, const LoopedTaskParams& p) {
  if (task == "random") return 1;
  if (task == "contextual_mapping") return 5;
  if (task == "sudoku") return 3 * p.sudokuBox * p.sudokuBox + 1;
  if (task == "countdown") return 8;
  if (task == "edit_distance" || task == "lcs") return 28;
  if (task == "icl_decision_tree") return p.iclDim + 3;
  std::string known;
  for (const std::string& t : loopedTaskNames()) known += (known.empty() ? "" : ", ") + t;
  throw Error("looped: unknown task \"" + task + "\" (expected " + known + ")");
}

LoopedTaskSample loopedTask(const std::string& task, const LoopedTaskParams& p, int width,
                            uint64_t seed) {
  const int needed = loopedTaskWidth(task, p);
  need(width >= needed, task,
       "needs " + std::to_string(needed) + " channels, the model has d = " + std::to_string(width));
  need(p.tokens >= 0 && p.stringLength >= 1 && p.iclDim >= 1 && p.iclPoints >= 0 && p.idBase >= 1 &&
           p.sudokuBlanks >= 0,
       task, "negative or zero sizes in the task parameters");
  need(p.sudokuBox == 2 || p.sudokuBox == 3 || task != "sudoku", task, "sudoku_box must be 2 or 3");
  need(p.sudokuBlanks <= p.sudokuBox * p.sudokuBox * p.sudokuBox * p.sudokuBox || task != "sudoku",
       task, "sudoku_blanks exceeds the number of cells");
  Rng rng(seed);
  if (task == "random") return random(p, width, rng);
  if (task == "contextual_mapping") return contextualMapping(p, width, rng);
  if (task == "sudoku") return sudoku(p, width, rng);
  if (task == "countdown") return countdown(width, rng);
  if (task == "edit_distance") return editDistanceTask(p, width, rng);
  if (task == "lcs") return lcsTask(p, width, rng);
  return iclDecisionTree(p, width, rng);
}

int editDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = 2 * static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = 2 * static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 2, cur[j - 1] + 2, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 3)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

int lcsLength(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace lsrl::seed_models
