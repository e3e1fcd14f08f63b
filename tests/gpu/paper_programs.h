// The paper's programs with small inputs, as the layer-runner tests compile and run them
// (fp32 in layer_runner_test.cpp, fp64 in layer_runner_f64_test.cpp): more_ones, vec2vec
// (n = 2, m = 1, N = 4) and tok2tok (L = 3, 3 entries) in every conditional variant, 8
// sequences of one length each.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/executor/executor.h"
#include "core/graph/graph.h"
#include "core/programs/more_ones.h"
#include "core/programs/prompts.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"

namespace lsrl::testing_vulkan {

struct ProgramCase {
  std::string name;
  Graph program;
  std::vector<ExactSequence> inputs;  // equal lengths
};

inline std::vector<ProgramCase> paperPrograms() {
  std::vector<ProgramCase> out;
  {
    ProgramCase c{"more_ones", buildMoreOnes(), {}};
    std::mt19937_64 rng(1);
    for (int b = 0; b < 8; ++b) {
      ExactSequence s;
      for (int t = 0; t < 40; ++t) s.push_back({Exact(static_cast<int>(rng() % 2))});
      c.inputs.push_back(s);
    }
    out.push_back(std::move(c));
  }
  for (const Conditional v : allConditionals()) {
    Vec2vecParams p;
    p.n = 2;
    p.m = 1;
    p.conditional = v;
    ProgramCase c{"vec2vec " + std::string(conditionalName(v)), buildVec2vec(p), {}};
    std::mt19937_64 rng(2);
    for (int b = 0; b < 8; ++b)
      c.inputs.push_back(
          vec2vecInput(randomValidQuery(2, 4, p.mu, rng), 2, 1, 4, smoothTestFunction(2, 1, 3)));
    out.push_back(std::move(c));
  }
  for (const Conditional v : allConditionals()) {
    Tok2tokParams p;
    p.L = 3;
    p.conditional = v;
    ProgramCase c{"tok2tok " + std::string(conditionalName(v)), buildTok2tok(p), {}};
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const Tok2tokCase k = randomDictionary(3, 3, 5, seed);
      c.inputs.push_back(tok2tokInput(k.dictionary, k.query, 3));
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace lsrl::testing_vulkan
