// "More ones or zeros" (paper Fig. 1, docs/spec/ua-programs.md §3): input width 1, tokens in
// {0, 1}; the output at step t is 1 if the prefix has more ones than zeros, else 0.
#pragma once

#include "core/graph/graph.h"
#include "core/numbers/exact.h"

namespace lsrl {

struct MoreOnesParams {
  Exact mu = Exact(10);  // the scale of the final f_larger (the paper uses 10)
};

// Named nodes: input, ones, zeros, output.
Graph buildMoreOnes(const MoreOnesParams& params = {});

}  // namespace lsrl
