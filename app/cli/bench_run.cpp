#include "app/cli/bench_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "app/cli/bench_timing.h"
#include "core/executor/executor.h"
#include "core/programs/program_registry.h"
#include "core/programs/prompts.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

constexpr uint64_t kSeed = 20240601;

// q, k1, v1, ... of a random dictionary (as many entries as fit, at most V^L = 1000),
// then random tokens in 0..9 up to the requested length.
ExactSequence tok2tokTokens(int count) {
  const int L = 3, V = 10;
  const int entries = std::clamp((count - L) / (2 * L), 1, 1000);
  const Tok2tokCase c = randomDictionary(entries, L, V, kSeed);
  ExactSequence tokens = tok2tokInput(c.dictionary, c.query, L, V);
  std::mt19937_64 rng(kSeed + 1);
  while (static_cast<int>(tokens.size()) < count) tokens.push_back({Exact(uniformInt(rng, 0, 9))});
  tokens.resize(static_cast<size_t>(count));
  return tokens;
}

// A valid vec2vec input: the query, then one token per cell of an N×N grid (N² ≥ count−1)
// of a smooth random function, cut to the requested length.
ExactSequence vec2vecTokens(int count) {
  const int n = 2, m = 1;
  const int N = std::max(2, static_cast<int>(std::ceil(std::sqrt(std::max(1, count - 1)))));
  if (vec2vecCellCount(n, N) > kMaxPromptCells) {
    throw Error("bench run: " + std::to_string(count) + " vec2vec tokens need more than " +
                std::to_string(kMaxPromptCells) + " prompt cells");
  }
  std::mt19937_64 rng(kSeed);
  const std::vector<double> query = randomValidQuery(n, N, Exact(1000), rng);
  ExactSequence tokens = vec2vecInput(query, n, m, N, smoothTestFunction(n, m, kSeed));
  tokens.resize(static_cast<size_t>(count));
  return tokens;
}

struct Timing {
  double medianSeconds = 0;
  double tokensPerSecond = 0;
};

template <class V>
Timing timeRuns(Executor<V>& ex, const std::vector<std::vector<V>>& tokens,
                const std::vector<std::vector<V>>& warmup, int repeats,
                std::vector<std::vector<V>>* lastOutputs) {
  ex.run(warmup);
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = ex.run(tokens);
    const auto t1 = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (lastOutputs != nullptr && r + 1 == repeats) *lastOutputs = std::move(out);
  }
  Timing t;
  t.medianSeconds = midpointMedian(seconds);
  t.tokensPerSecond =
      t.medianSeconds > 0 ? static_cast<double>(tokens.size()) / t.medianSeconds : 0;
  return t;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

int benchRun(const BenchRunOptions& options, std::ostream& out) {
  if (options.floatTokens < 1 || options.exactTokens < 1 || options.repeats < 1) {
    throw Error("bench run: token counts and repeats must be positive");
  }
  struct Case {
    std::string name;
    std::map<std::string, std::string> params;
    ExactSequence (*tokens)(int);
  };
  const std::vector<Case> cases = {
      {"tok2tok", {{"L", "3"}, {"conditional", "direct"}}, &tok2tokTokens},
      {"vec2vec", {{"n", "2"}, {"m", "1"}, {"conditional", "direct"}}, &vec2vecTokens},
  };

  nlohmann::ordered_json figures;
  figures["bench"] = "run";
  figures["threads"] = 1;
  figures["repeats"] = options.repeats;
  out << "CPU executor, uncompiled DAG, one thread, median of " << options.repeats
      << " runs after one warm-up run.\n";
  if (options.exactTokens < options.floatTokens) {
    out << "Exact runs use the first " << options.exactTokens << " of the " << options.floatTokens
        << " tokens (exact arithmetic is far slower).\n";
  }
  out << "\n"
      << padded("program", 8, false) << padded("nodes", 7) << padded("instrs", 8)
      << padded("mode", 9) << padded("tokens", 8) << padded("median s", 11)
      << padded("tokens/s", 12) << padded("us/token", 10) << padded("ns/node", 9) << "\n";

  for (const Case& c : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    const Graph g = buildProgram(c.name, c.params);
    const auto plan = Plan::make(g);
    const double planSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int count = std::max(options.floatTokens, options.exactTokens);
    const ExactSequence all = c.tokens(count);
    const FloatSequence ftokens = floatTokens(
        ExactSequence(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(options.floatTokens)));
    const ExactSequence etokens(all.begin(),
                                all.begin() + static_cast<std::ptrdiff_t>(options.exactTokens));
    const int nodes = plan->stats().programNodes;

    FloatExecutor fx(plan);
    ExactExecutor ex(plan);
    FloatSequence fout;
    ExactSequence eout;
    const FloatSequence fwarm(ftokens.begin(),
                              ftokens.begin() + std::min<std::ptrdiff_t>(1000, ftokens.size()));
    const ExactSequence ewarm(etokens.begin(),
                              etokens.begin() + std::min<std::ptrdiff_t>(100, etokens.size()));
    const Timing ft = timeRuns(fx, ftokens, fwarm, options.repeats, &fout);
    const Timing et = timeRuns(ex, etokens, ewarm, options.repeats, &eout);

    // How far float64 is from the exact values on the tokens both ran.
    double maxDiff = 0;
    for (size_t t = 0; t < eout.size() && t < fout.size(); ++t) {
      for (size_t i = 0; i < eout[t].size(); ++i) {
        maxDiff = std::max(maxDiff, std::abs(fout[t][i] - eout[t][i].toDouble()));
      }
    }

    auto row = [&](const char* mode, size_t tokens, const Timing& t) {
      const double usPerToken = 1e6 / t.tokensPerSecond;
      out << padded(c.name, 8, false) << padded(std::to_string(nodes), 7)
          << padded(std::to_string(plan->stats().instructions), 8) << padded(mode, 9)
          << padded(std::to_string(tokens), 8) << padded(fixed(t.medianSeconds, 4), 11)
          << padded(fixed(t.tokensPerSecond, 0), 12) << padded(fixed(usPerToken, 2), 10)
          << padded(fixed(usPerToken * 1000 / nodes, 1), 9) << "\n";
    };
    row("float64", ftokens.size(), ft);
    row("exact", etokens.size(), et);

    const std::string k = c.name + "_";
    figures[k + "nodes"] = nodes;
    figures[k + "instructions"] = plan->stats().instructions;
    figures[k + "plan_ms"] = std::round(planSeconds * 1e5) / 100;
    figures[k + "float64_tokens"] = ftokens.size();
    figures[k + "float64_tokens_per_s"] = std::round(ft.tokensPerSecond);
    figures[k + "exact_tokens"] = etokens.size();
    figures[k + "exact_tokens_per_s"] = std::round(et.tokensPerSecond * 10) / 10;
    figures[k + "float64_vs_exact_max_abs_diff"] = maxDiff;
  }
  out << "\n" << figures.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
