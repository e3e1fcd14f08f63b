#include "core/programs/more_ones.h"

#include "core/graph/sugar.h"
#include "core/util/error.h"

namespace lsrl {

Graph buildMoreOnes(const MoreOnesParams& params) {
  if (params.mu.sign() <= 0)
    throw Error("more_ones: mu must be positive, got " + params.mu.toString());
  Graph g;
  const Var input = Input(g, 1, "input");
  const ExactMatrix one = ExactMatrix::identity(1);
  const Var ones = LinState(input, one, one, zerosVector(1), {}, "ones");
  const Var isZero = f_not(input);
  const Var zeros = LinState(isZero, one, one, zerosVector(1), {}, "zeros");
  Var output = f_larger(ones, zeros, params.mu);
  output.named("output");
  g.setOutput(output.id());
  return g;
}

}  // namespace lsrl
