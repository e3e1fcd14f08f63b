// Token-to-token maps (paper Lst. 2, docs/spec/ua-programs.md §5): keys and values of L tokens,
// input width 1. Input = q, k1, v1, ..., kK, vK; the outputs at the last L steps are the
// value whose key equals q (see prompts.h for the prompt builders).
#pragma once

#include "core/graph/graph.h"
#include "core/graph/sugar.h"
#include "core/programs/conditional.h"

namespace lsrl {

struct Tok2tokParams {
  int L = 3;  // key and value length
  Conditional conditional = Conditional::Direct;
  Exact mu = kDefaultScale;              // every step's scale
  Exact lambda = kDefaultLargeConstant;  // the conditionals' large constant
};

constexpr int kMaxTok2tokLength = 1024;

// Named nodes (docs/spec/ua-programs.md): input, counter, modL, mod2L, is_prompt, is_compare,
// is_copy, first_copy, q_in, q_upd_i, query, pick_i, q_elem, match, buffer, buffer_sum,
// all_match, mfc, started_on_update, started_on, copying, copy_on, eq_i, should_i,
// reg_update_i, reg_i, out_i, output (i = 0..L-1).
Graph buildTok2tok(const Tok2tokParams& params = {});

}  // namespace lsrl
