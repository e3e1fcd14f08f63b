// Continuous functions f: [0,1]^n -> R^m (paper Lst. 1, docs/spec/ua-programs.md §4).
// Input width 1+n+m. The first token is the query [x; 0 (m+1)], then one token per
// cell [1/N, lower corner (n), f(centre) (m)]; the output at the last step is f at the
// centre of the cell that holds x (see prompts.h for the prompt builders).
#pragma once

#include "core/graph/graph.h"
#include "core/graph/sugar.h"
#include "core/programs/conditional.h"

namespace lsrl {

struct Vec2vecParams {
  int n = 2;  // input dimension of f
  int m = 1;  // output dimension of f
  Conditional conditional = Conditional::Direct;
  Exact mu = kDefaultScale;              // every step's scale
  Exact lambda = kDefaultLargeConstant;  // the conditionals' large constant
};

constexpr int kMaxVec2vecDim = 4096;

// Named nodes: input, one, counter, counter_n, x_update, x, step, lb, ub, inside, total,
// in_cell, active, active_m, update, out (the output).
Graph buildVec2vec(const Vec2vecParams& params = {});

}  // namespace lsrl
