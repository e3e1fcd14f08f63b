// The paper's programs token by token: every named intermediate node against its
// trajectory computed independently here from the construction's meaning
// (docs/spec/ua-programs.md), in every conditional variant, exactly and in float64.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/executor/executor.h"
#include "core/programs/more_ones.h"
#include "core/programs/prompts.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"
#include "programs/program_test_util.h"

namespace lsrl {
namespace {

using namespace testing_programs;

// ---- more ones ----------------------------------------------------------------------

TEST(MoreOnesRun, MajorityOfThePrefix) {
  const Graph g = buildMoreOnes();
  auto plan = Plan::make(g);
  ExactExecutor ex(plan);
  FloatExecutor fx(plan);
  std::mt19937_64 rng(11);
  for (int run = 0; run < 20; ++run) {
    const int T = 1 + uniformInt(rng, 0, 30);
    ExactSequence tokens;
    std::vector<Exact> expected;
    std::vector<Exact> ones;
    std::vector<Exact> zeros;
    int o = 0;
    int z = 0;
    for (int t = 0; t < T; ++t) {
      const int bit = uniformInt(rng, 0, 1);
      tokens.push_back({Exact(bit)});
      (bit ? o : z) += 1;
      ones.emplace_back(o);
      zeros.emplace_back(z);
      expected.emplace_back(o > z ? 1 : 0);
    }
    ExactTrace trace;
    const ExactSequence out = ex.run(tokens, &trace);
    ASSERT_EQ(out.size(), tokens.size());
    for (int t = 0; t < T; ++t)
      EXPECT_EQ(out[static_cast<size_t>(t)][0], expected[static_cast<size_t>(t)]);
    EXPECT_EQ(scalarTrajectory(g, trace, "ones"), ones);
    EXPECT_EQ(scalarTrajectory(g, trace, "zeros"), zeros);
    const FloatSequence fout = fx.run(toFloat(tokens));
    for (int t = 0; t < T; ++t) {
      EXPECT_NEAR(fout[static_cast<size_t>(t)][0], expected[static_cast<size_t>(t)].toDouble(),
                  1e-9);
    }
  }
}

// ---- tok2tok ------------------------------------------------------------------------

// The expected trajectory of every named node of tok2tok on q, k1, v1, ..., computed
// from what each node means.
struct Tok2tokExpectation {
  std::vector<std::vector<int>> scalars;  // by name index below, [step]
  std::vector<std::vector<int>> query;    // [step][i]
  std::vector<std::vector<int>> buffer;   // [step][i]
  std::vector<std::vector<int>> regs;     // [i][step]
};

const std::vector<std::string> kTok2tokScalars = {
    "counter",    "modL",       "mod2L",   "is_prompt", "is_compare", "is_copy",
    "first_copy", "q_in",       "q_elem",  "match",     "buffer_sum", "all_match",
    "mfc",        "started_on", "copying", "copy_on",   "output"};

int indexOf(const std::string& name) {
  for (size_t i = 0; i < kTok2tokScalars.size(); ++i) {
    if (kTok2tokScalars[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Tok2tokExpectation expectTok2tok(const std::vector<int>& tok, const std::vector<int>& q, int L) {
  const int T = static_cast<int>(tok.size());
  Tok2tokExpectation e;
  e.scalars.assign(kTok2tokScalars.size(), std::vector<int>(static_cast<size_t>(T), 0));
  e.query.assign(static_cast<size_t>(T), std::vector<int>(static_cast<size_t>(L), 0));
  e.buffer.assign(static_cast<size_t>(T), std::vector<int>(static_cast<size_t>(L + 1), 0));
  e.regs.assign(static_cast<size_t>(L), std::vector<int>(static_cast<size_t>(T), 0));
  auto at = [&](const std::string& name, int t) -> int& {
    return e.scalars[static_cast<size_t>(indexOf(name))][static_cast<size_t>(t)];
  };
  std::vector<int> match(static_cast<size_t>(T), 0);
  int start = -1;
  for (int t = 0; t < T; ++t) {
    const size_t ts = static_cast<size_t>(t);
    at("counter", t) = t;
    at("modL", t) = t % L;
    at("mod2L", t) = t % (2 * L);
    const bool prompt = t >= L;
    const bool compare = t % (2 * L) >= L;  // the key tokens
    const bool copy = prompt && !compare;   // the value tokens
    at("is_prompt", t) = prompt;
    at("is_compare", t) = compare;
    at("is_copy", t) = copy;
    at("first_copy", t) = copy && t % L == 0;
    at("q_in", t) = prompt ? 0 : tok[ts];
    for (int i = 0; i < L; ++i)
      e.query[ts][static_cast<size_t>(i)] = t >= i ? q[static_cast<size_t>(i)] : 0;
    at("q_elem", t) = e.query[ts][static_cast<size_t>(t % L)];
    match[ts] = compare && tok[ts] == q[static_cast<size_t>(t % L)];
    at("match", t) = match[ts];
    int sum = 0;
    for (int i = 0; i <= L; ++i) {
      const int s = t - (L - i);
      const int bit = s >= 0 ? match[static_cast<size_t>(s)] : 0;
      e.buffer[ts][static_cast<size_t>(i)] = bit;
      if (i < L) sum += bit;
    }
    at("buffer_sum", t) = sum;
    at("all_match", t) = sum == L;
    at("mfc", t) = sum == L && copy && t % L == 0;
    if (at("mfc", t)) start = t;
    at("started_on", t) = start < 0 ? 0 : start;
    at("copying", t) = t < at("started_on", t) + L;
    at("copy_on", t) = copy && at("copying", t);
    for (int i = 0; i < L; ++i) {
      if (start >= 0 && t >= start + i) {
        e.regs[static_cast<size_t>(i)][ts] = tok[static_cast<size_t>(start + i)];
      }
    }
    at("output", t) = e.regs[static_cast<size_t>(t % L)][ts];
  }
  return e;
}

class Tok2tokTrajectories : public ::testing::TestWithParam<Conditional> {};

TEST_P(Tok2tokTrajectories, EveryNamedNodeTokenByToken) {
  const int L = 3;
  Tok2tokParams p;
  p.L = L;
  p.conditional = GetParam();
  const Graph g = buildTok2tok(p);
  auto plan = Plan::make(g);
  ExactExecutor ex(plan);
  FloatExecutor fx(plan);
  for (uint64_t seed : {7u, 8u, 9u}) {
    const Tok2tokCase c = randomDictionary(3 + static_cast<int>(seed % 3), L, 10, seed);
    const ExactSequence input = tok2tokInput(c.dictionary, c.query, L, 10);
    std::vector<int> tok;
    for (const ExactVector& t : input) tok.push_back(static_cast<int>(t[0].toDouble()));
    const Tok2tokExpectation e = expectTok2tok(tok, c.query, L);
    // The expectation itself: started_on jumps to the first value token after the
    // matching key, and the last L outputs are the value.
    int matchIndex = 0;
    while (c.dictionary[static_cast<size_t>(matchIndex)].key != c.query) ++matchIndex;
    const int firstValueToken = L + 2 * L * matchIndex + L;
    EXPECT_EQ(e.scalars[static_cast<size_t>(indexOf("started_on"))].back(), firstValueToken);
    for (int i = 0; i < L; ++i) {
      EXPECT_EQ(e.scalars[static_cast<size_t>(indexOf("output"))]
                         [tok.size() - static_cast<size_t>(L - i)],
                tok2tokExpected(c.dictionary, c.query, L)[static_cast<size_t>(i)]);
    }

    ExactTrace trace;
    ex.run(input, &trace);
    FloatTrace ftrace;
    fx.run(toFloat(input), &ftrace);
    const std::string where =
        std::string(conditionalName(GetParam())) + ", seed " + std::to_string(seed);
    for (size_t k = 0; k < kTok2tokScalars.size(); ++k) {
      const std::string& name = kTok2tokScalars[k];
      EXPECT_EQ(scalarTrajectory(g, trace, name), exacts(e.scalars[k])) << name << ", " << where;
      const std::vector<double> f = scalarTrajectory(g, ftrace, name);
      for (size_t t = 0; t < f.size(); ++t) {
        EXPECT_NEAR(f[t], e.scalars[k][t], 1e-6) << name << " step " << t << ", float64, " << where;
      }
    }
    EXPECT_EQ(trajectory(g, trace, "query"), exactRows(e.query)) << where;
    EXPECT_EQ(trajectory(g, trace, "buffer"), exactRows(e.buffer)) << where;
    for (int i = 0; i < L; ++i) {
      const std::string name = "reg_" + std::to_string(i);
      EXPECT_EQ(scalarTrajectory(g, trace, name), exacts(e.regs[static_cast<size_t>(i)]))
          << name << ", " << where;
      const std::vector<double> f = scalarTrajectory(g, ftrace, name);
      for (size_t t = 0; t < f.size(); ++t) {
        EXPECT_NEAR(f[t], e.regs[static_cast<size_t>(i)][t], 1e-6)
            << name << " step " << t << ", float64, " << where;
      }
      // eq_i is modL == i; out_i is reg_i at positions i (mod L).
      std::vector<int> eq;
      std::vector<int> out;
      for (size_t t = 0; t < tok.size(); ++t) {
        eq.push_back(static_cast<int>(t) % L == i);
        out.push_back(static_cast<int>(t) % L == i ? e.regs[static_cast<size_t>(i)][t] : 0);
      }
      EXPECT_EQ(scalarTrajectory(g, trace, "eq_" + std::to_string(i)), exacts(eq)) << where;
      EXPECT_EQ(scalarTrajectory(g, trace, "out_" + std::to_string(i)), exacts(out)) << where;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, Tok2tokTrajectories, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

// ---- vec2vec ------------------------------------------------------------------------

class Vec2vecTrajectories : public ::testing::TestWithParam<Conditional> {};

TEST_P(Vec2vecTrajectories, EveryNamedNodeTokenByToken) {
  struct Shape {
    int n, m, N;
  };
  for (const Shape s : {Shape{1, 1, 5}, Shape{2, 1, 4}, Shape{2, 3, 3}, Shape{3, 2, 2}}) {
    Vec2vecParams p;
    p.n = s.n;
    p.m = s.m;
    p.conditional = GetParam();
    const Graph g = buildVec2vec(p);
    auto plan = Plan::make(g);
    ExactExecutor ex(plan);
    FloatExecutor fx(plan);
    const TargetFunction f =
        smoothTestFunction(s.n, s.m, 100 + static_cast<uint64_t>(s.n * 10 + s.m));
    std::mt19937_64 rng(static_cast<uint64_t>(s.N));
    const std::vector<double> query = randomValidQuery(s.n, s.N, Exact(1000), rng);
    const ExactSequence input = vec2vecInput(query, s.n, s.m, s.N, f);
    const std::vector<int> qcell =
        vec2vecQueryCell(ExactVector(input[0].begin(), input[0].begin() + s.n), s.N);
    const std::string where = std::string(conditionalName(GetParam())) +
                              ", n=" + std::to_string(s.n) + " m=" + std::to_string(s.m) +
                              " N=" + std::to_string(s.N);

    ExactTrace trace;
    const ExactSequence out = ex.run(input, &trace);
    FloatTrace ftrace;
    const FloatSequence fout = fx.run(toFloat(input), &ftrace);
    const auto counter = scalarTrajectory(g, trace, "counter");
    const auto x = trajectory(g, trace, "x");
    const auto lb = trajectory(g, trace, "lb");
    const auto ub = trajectory(g, trace, "ub");
    const auto inside = trajectory(g, trace, "inside");
    const auto total = scalarTrajectory(g, trace, "total");
    const auto inCell = scalarTrajectory(g, trace, "in_cell");
    const auto active = scalarTrajectory(g, trace, "active");
    const auto update = trajectory(g, trace, "update");
    ExactVector expectedOut = zerosVector(s.m);
    for (size_t t = 0; t < input.size(); ++t) {
      EXPECT_EQ(counter[t], Exact(static_cast<int>(t) + 1)) << where;
      EXPECT_EQ(x[t], ExactVector(input[0].begin(), input[0].begin() + s.n))
          << "x step " << t << ", " << where;
      if (t == 0) {
        // The query token: its value slots are zero, so nothing is written.
        EXPECT_EQ(update[t], zerosVector(s.m)) << where;
        EXPECT_EQ(out[t], zerosVector(s.m)) << where;
        continue;
      }
      const std::vector<int> cell = vec2vecCellIndex(static_cast<long long>(t) - 1, s.n, s.N);
      EXPECT_EQ(lb[t], vec2vecCellCorner(cell, s.N)) << where;
      ExactVector upper = vec2vecCellCorner(cell, s.N);
      for (Exact& u : upper) u += Exact::rational(1, s.N);
      EXPECT_EQ(ub[t], upper) << where;
      int same = 0;
      for (int j = 0; j < s.n; ++j) {
        const bool in = cell[static_cast<size_t>(j)] == qcell[static_cast<size_t>(j)];
        same += in;
        EXPECT_EQ(inside[t][static_cast<size_t>(j)], Exact(in ? 1 : 0))
            << "inside step " << t << ", " << where;
      }
      EXPECT_EQ(total[t], Exact(same)) << where;
      const bool hit = cell == qcell;
      EXPECT_EQ(inCell[t], Exact(hit ? 1 : 0)) << "step " << t << ", " << where;
      EXPECT_EQ(active[t], Exact(hit ? 1 : 0)) << "step " << t << ", " << where;
      const ExactVector value(input[t].end() - s.m, input[t].end());
      EXPECT_EQ(update[t], hit ? value : zerosVector(s.m)) << "update step " << t << ", " << where;
      if (hit) expectedOut = value;
      EXPECT_EQ(out[t], expectedOut) << "out step " << t << ", " << where;
      for (int k = 0; k < s.m; ++k) {
        EXPECT_NEAR(fout[t][static_cast<size_t>(k)], expectedOut[static_cast<size_t>(k)].toDouble(),
                    1e-9)
            << "float64 out step " << t << ", " << where;
      }
    }
    // The answer is f at the centre of the query's cell.
    const ExactTargetFunction exactF = [&](const ExactVector& centre) {
      std::vector<double> c;
      for (const Exact& e : centre) c.push_back(e.toDouble());
      ExactVector r;
      for (double v : f(c)) r.emplace_back(v);
      return r;
    };
    const ExactVector xq(input[0].begin(), input[0].begin() + s.n);
    EXPECT_EQ(out.back(), vec2vecExpected(xq, s.N, exactF)) << where;
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, Vec2vecTrajectories, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

}  // namespace
}  // namespace lsrl
