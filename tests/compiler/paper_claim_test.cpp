// The paper's claim about numerics (Sec. 5, Fig. 4 at σ = 0): tok2tok (L = 3, direct)
// compiled by the plain algorithm in float64 answers wrong tokens, while the exact
// compile is right on every dictionary. Also records how the optimised float64 compile
// does (its rate is reported, not asserted: it is a finding, see docs/compiler.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compiler/compile_test_util.h"
#include "core/executor/executor.h"
#include "core/programs/prompts.h"
#include "core/programs/tok2tok.h"

namespace lsrl {
namespace {

constexpr int kL = 3;
constexpr int kV = 10;
// Running the plain compile (4·10^6 non-zeros) on 50 prompts takes ~8 s in Release but
// minutes under AddressSanitizer, where the test checks memory safety on 10 of them.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kCases = 10;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kCases = 10;
#else
constexpr int kCases = 50;
#endif
#else
constexpr int kCases = 50;
#endif

struct Cases {
  std::vector<ExactSequence> inputs;
  std::vector<std::vector<int>> answers;
};

Cases seededCases() {
  Cases c;
  for (int i = 0; i < kCases; ++i) {
    const int K = 1 + i % 10;
    const Tok2tokCase d = randomDictionary(K, kL, kV, 7000 + static_cast<uint64_t>(i));
    c.inputs.push_back(tok2tokInput(d.dictionary, d.query, kL, kV));
    c.answers.push_back(tok2tokExpected(d.dictionary, d.query, kL, kV));
  }
  return c;
}

// Dictionaries with at least one wrong answer token (float64 outputs rounded).
int wrongDictionariesFloat(const Graph& path, const Cases& c) {
  PlanOptions po = Executor<double>::defaultOptions();
  po.allowHugeSparse = true;  // the plain compile is large but sparse
  const auto plan = Plan::make(path, po);
  std::vector<FloatSequence> inputs;
  for (const ExactSequence& in : c.inputs) inputs.push_back(floatTokens(in));
  const auto out = runBatch(plan, inputs);
  int wrong = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t T = out[i].size();
    bool bad = false;
    for (int k = 0; k < kL; ++k) {
      const double v = out[i][T - kL + static_cast<size_t>(k)][0];
      bad = bad || !(std::round(v) == c.answers[i][static_cast<size_t>(k)]);
    }
    wrong += bad ? 1 : 0;
  }
  return wrong;
}

TEST(PaperClaim, PlainFloat64WrongExactRight) {
  Tok2tokParams p;
  p.L = kL;
  p.conditional = Conditional::Direct;
  const Graph program = buildTok2tok(p);
  const Cases cases = seededCases();

  CompileOptions plainFloat;
  plainFloat.backend = Backend::Float64;
  plainFloat.optimize = false;
  plainFloat.recordHistory = false;
  const int plainWrong = wrongDictionariesFloat(compile(program, plainFloat).path, cases);

  CompileOptions optFloat;
  optFloat.backend = Backend::Float64;
  const int optWrong = wrongDictionariesFloat(compile(program, optFloat).path, cases);

  const CompileResult exact = compile(program, {});
  const auto plan = Plan::make(exact.path);
  const auto out = runBatch(plan, cases.inputs);
  int exactWrong = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t T = out[i].size();
    for (int k = 0; k < kL; ++k) {
      const bool ok = out[i][T - kL + static_cast<size_t>(k)] ==
                      ExactVector{Exact(cases.answers[i][static_cast<size_t>(k)])};
      exactWrong += ok ? 0 : 1;
      EXPECT_TRUE(ok) << "exact compile, dictionary " << i << ", output " << k;
    }
  }
  std::printf(
      "tok2tok L=3 direct, %d dictionaries: float64 plain wrong on %d, float64 optimised "
      "wrong on %d, exact wrong on %d\n",
      kCases, plainWrong, optWrong, exactWrong);
  RecordProperty("float64_plain_wrong", plainWrong);
  RecordProperty("float64_optimised_wrong", optWrong);
  EXPECT_GT(plainWrong, 0);
  EXPECT_EQ(exactWrong, 0);
}

}  // namespace
}  // namespace lsrl
