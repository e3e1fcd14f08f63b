#include "core/programs/vec2vec.h"

#include <string>

#include "core/util/error.h"

namespace lsrl {

namespace {

void checkParams(const Vec2vecParams& p) {
  if (p.n < 1 || p.n > kMaxVec2vecDim) {
    throw Error("vec2vec: n must be in 1.." + std::to_string(kMaxVec2vecDim) + ", got " +
                std::to_string(p.n));
  }
  if (p.m < 1 || p.m > kMaxVec2vecDim) {
    throw Error("vec2vec: m must be in 1.." + std::to_string(kMaxVec2vecDim) + ", got " +
                std::to_string(p.m));
  }
  if (p.mu.sign() <= 0) throw Error("vec2vec: mu must be positive, got " + p.mu.toString());
  if (p.lambda.sign() <= 0) {
    throw Error("vec2vec: lambda must be positive, got " + p.lambda.toString());
  }
}

}  // namespace

Graph buildVec2vec(const Vec2vecParams& p) {
  checkParams(p);
  const int n = p.n;
  const int m = p.m;
  const Exact& mu = p.mu;
  const Exact& lambda = p.lambda;
  const Exact half = Exact::rational(1, 2);
  Graph g;
  const Var input = Input(g, 1 + n + m, "input");

  // 1. A counter 1, 2, 3, ... and its copy over the n input slots.
  Var one = f_constant(input, {Exact(1)});
  one.named("one");
  const ExactMatrix id1 = ExactMatrix::identity(1);
  const Var counter = LinState(one, id1, id1, zerosVector(1), {}, "counter");
  const Var counterN =
      Linear(counter, ExactMatrix::filled(n, 1, Exact(1)), zerosVector(n), "counter_n");

  // 3. Keep the query (the first token's first n slots).
  const ConditionalSite xSite{[&] { return f_smaller(counterN, Exact::rational(3, 2), mu); },
                              [&] { return input.slice(0, n); },
                              [&] {
                                const Var test = f_larger(counterN, Exact::rational(3, 2), mu);
                                return optimizedAssign(
                                    test, [&] { return input.slice(0, n); }, lambda);
                              }};
  Var xUpdate = conditionalAssign(p.conditional, xSite, lambda, mu);
  xUpdate.named("x_update");
  // 4.
  const ExactMatrix idN = ExactMatrix::identity(n);
  const Var x = LinState(xUpdate, idN, idN, zerosVector(n), {}, "x");

  // 5. The current cell (lb, ub] from the token.
  const Var width = input[0];
  const Var step = Linear(width, ExactMatrix::filled(n, 1, Exact(1)), zerosVector(n), "step");
  Var lb = input.slice(1, 1 + n);
  lb.named("lb");
  Var ub = lb + step;
  ub.named("ub");

  // 6-7. Whether x lies in this cell (and we are past the query token).
  Var inside = f_bump(x, lb, ub, mu);
  inside.named("inside");
  const Var total = Linear(inside, ExactMatrix::filled(1, n, Exact(1)), zerosVector(1), "total");
  Var inCell = f_larger(total, Exact(n) - half, mu);
  inCell.named("in_cell");
  const Var pastQuery = f_larger(counter, half, mu);
  Var active = f_and(inCell, pastQuery, mu);
  active.named("active");
  // 8.
  const Var activeM =
      Linear(active, ExactMatrix::filled(m, 1, Exact(1)), zerosVector(m), "active_m");

  // 9. Write the cell's value when active.
  const ConditionalSite updateSite{[&] { return f_larger(activeM, half, mu); },
                                   [&] { return input.slice(1 + n, 1 + n + m); },
                                   [&] {
                                     const Var test1 = f_smaller(activeM, half, mu);
                                     const Var gate1 = test1 * (-lambda);
                                     const Var value1 = input.slice(1 + n, 1 + n + m);
                                     const Var sum1 = gate1 + value1;
                                     const Var plus = ReLU(sum1);
                                     const Var test2 = f_smaller(activeM, half, mu);
                                     const Var gate2 = test2 * (-lambda);
                                     const Var value2 = input.slice(1 + n, 1 + n + m);
                                     const Var diff2 = gate2 - value2;
                                     const Var minus = ReLU(diff2);
                                     return plus - minus;
                                   }};
  Var update = conditionalAssign(p.conditional, updateSite, lambda, mu);
  update.named("update");

  // 10.
  const ExactMatrix idM = ExactMatrix::identity(m);
  const Var out = LinState(update, idM, idM, zerosVector(m), {}, "out");
  g.setOutput(out.id());
  return g;
}

}  // namespace lsrl
