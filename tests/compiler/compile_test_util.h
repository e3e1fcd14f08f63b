// Helpers for the compiler tests: random inputs and function-equality checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/compiler/convert.h"
#include "core/compiler/evaluate.h"
#include "core/executor/executor.h"
#include "core/numbers/exact_field.h"
#include "core/programs/prompts.h"

namespace lsrl::testing_compile {

// T tokens of width d with small rational entries of both signs.
inline ExactSequence randomTokens(int d, int T, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ExactSequence out;
  for (int t = 0; t < T; ++t) {
    ExactVector v;
    for (int i = 0; i < d; ++i)
      v.push_back(Exact::rational(uniformInt(rng, -40, 40), uniformInt(rng, 1, 9)));
    out.push_back(std::move(v));
  }
  return out;
}

inline FloatSequence toFloat(const ExactSequence& xs) {
  FloatSequence out;
  for (const ExactVector& v : xs) {
    FloatVector f;
    for (const Exact& e : v) f.push_back(e.toDouble());
    out.push_back(std::move(f));
  }
  return out;
}

inline ExactSequence runExact(const Graph& g, const ExactSequence& xs) {
  Executor<Exact> ex(g);
  return ex.run(xs);
}

// The same, through the compiler's sparse evaluator (no size limits) in the graph's field.
inline ExactSequence runExactSparse(const Graph& g, const ExactSequence& xs) {
  compiler::Scalars<compiler::ExactScalar> sc;
  sc.field = &CosField::get(g.conductor());
  const compiler::CGraph<compiler::ExactScalar> cg = compiler::fromGraph(g, sc);
  std::vector<std::vector<compiler::ExactScalar>> tokens;
  for (const ExactVector& v : xs) {
    std::vector<compiler::ExactScalar> t;
    for (const Exact& e : v) t.push_back(sc.from(e));
    tokens.push_back(std::move(t));
  }
  ExactSequence out;
  for (const auto& v : compiler::evaluate(cg, tokens)) {
    ExactVector e;
    for (const auto& x : v) e.push_back(sc.to(x));
    out.push_back(std::move(e));
  }
  return out;
}

inline FloatSequence runFloat(const Graph& g, const FloatSequence& xs) {
  Executor<double> ex(g);
  return ex.run(xs);
}

inline long long fired(const CompileResult& r, const std::string& rule) {
  auto it = r.ruleCounts.find(rule);
  return it == r.ruleCounts.end() ? 0 : it->second;
}

// The compiled path computes exactly the program's outputs on these sequences.
// With sparse = true the path runs on the compiler's sparse evaluator (paths too large for
// the CPU executor's checks); the program always runs on the CPU executor.
inline void expectSameExact(const Graph& program, const Graph& path,
                            const std::vector<ExactSequence>& inputs, bool sparse = false) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ExactSequence want = runExact(program, inputs[k]);
    const ExactSequence got = sparse ? runExactSparse(path, inputs[k]) : runExact(path, inputs[k]);
    ASSERT_EQ(want.size(), got.size());
    for (size_t t = 0; t < want.size(); ++t) {
      ASSERT_EQ(want[t], got[t]) << "input " << k << " token " << t;
    }
  }
}

inline void expectCloseFloat(const Graph& program, const Graph& path,
                             const std::vector<ExactSequence>& inputs, double tol) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const FloatSequence xs = toFloat(inputs[k]);
    const FloatSequence want = runFloat(program, xs);
    const FloatSequence got = runFloat(path, xs);
    ASSERT_EQ(want.size(), got.size());
    for (size_t t = 0; t < want.size(); ++t) {
      ASSERT_EQ(want[t].size(), got[t].size());
      for (size_t i = 0; i < want[t].size(); ++i) {
        EXPECT_NEAR(want[t][i], got[t][i], tol * (1 + std::abs(want[t][i])))
            << "input " << k << " token " << t;
      }
    }
  }
}

}  // namespace lsrl::testing_compile
