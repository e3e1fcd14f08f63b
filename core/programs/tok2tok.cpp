#include "core/programs/tok2tok.h"

#include <string>
#include <vector>

#include "core/util/error.h"

namespace lsrl {

namespace {

void checkParams(const Tok2tokParams& p) {
  if (p.L < 1 || p.L > kMaxTok2tokLength) {
    throw Error("tok2tok: L must be in 1.." + std::to_string(kMaxTok2tokLength) + ", got " +
                std::to_string(p.L));
  }
  if (p.mu.sign() <= 0) throw Error("tok2tok: mu must be positive, got " + p.mu.toString());
  if (p.lambda.sign() <= 0) {
    throw Error("tok2tok: lambda must be positive, got " + p.lambda.toString());
  }
}

std::string indexed(const char* name, int i) { return std::string(name) + "_" + std::to_string(i); }

}  // namespace

Graph buildTok2tok(const Tok2tokParams& p) {
  checkParams(p);
  const int L = p.L;
  const Exact& mu = p.mu;
  const Exact& lambda = p.lambda;
  const Exact half = Exact::rational(1, 2);
  const Exact Lx(L);
  const ExactMatrix id1 = ExactMatrix::identity(1);
  Graph g;
  Var input = Input(g, 1, "input");
  input.setAlwaysPositive();  // tokens are 0..V-1

  // 1. Counters.
  const Var one = f_constant(input, {Exact(1)});
  Var counter = LinState(one, id1, id1, {Exact(-1)}, {}, "counter");
  counter.setAlwaysPositive();
  Var modL = f_modulo_counter(input, L, mu);
  modL.named("modL");
  Var mod2L = f_modulo_counter(input, 2 * L, mu);
  mod2L.named("mod2L");

  // 2. Switches.
  Var isPrompt = f_larger(counter, Lx - half, mu);
  isPrompt.named("is_prompt");
  Var isCompare = f_larger(mod2L, Lx - half, mu);
  isCompare.named("is_compare");
  const Var notCompare = f_not(isCompare);
  Var isCopy = f_and(isPrompt, notCompare, mu);
  isCopy.named("is_copy");
  const Var modLZero = f_smaller(modL, half, mu);
  Var firstCopy = f_and(isCopy, modLZero, mu);
  firstCopy.named("first_copy");

  // modL == i, built fresh at every call.
  auto modLIs = [&](int i) {
    const Var above = f_larger(modL, Exact(i) - half, mu);
    const Var below = f_smaller(modL, Exact(i) + half, mu);
    return f_and(above, below, mu);
  };
  // modL != i, the O form's complementary test.
  auto modLIsNot = [&](int i) {
    const Var above = f_larger(modL, Exact(i) + half, mu);
    const Var below = f_smaller(modL, Exact(i) - half, mu);
    return f_or(above, below, mu);
  };

  // 3. The input while still reading the query.
  const ConditionalSite qInSite{[&] { return f_smaller(isPrompt, half, mu); },
                                [&] { return input; },
                                [&] {
                                  const Var test = f_larger(isPrompt, half, mu);
                                  return optimizedAssign(
                                      test, [&] { return input; }, lambda);
                                }};
  Var qIn = conditionalAssign(p.conditional, qInSite, lambda, mu);
  qIn.named("q_in");
  qIn.setAlwaysPositive();

  // 4. Store the query token i in slot i.
  std::vector<Var> qUpdates;
  for (int i = 0; i < L; ++i) {
    const ConditionalSite site{[&] { return modLIs(i); }, [&] { return qIn; },
                               [&] {
                                 const Var test = modLIsNot(i);
                                 return optimizedAssign(
                                     test, [&] { return qIn; }, lambda);
                               }};
    Var upd = conditionalAssign(p.conditional, site, lambda, mu);
    upd.named(indexed("q_upd", i));
    qUpdates.push_back(upd);
  }
  const Var qUpdate = Concat(qUpdates);
  const ExactMatrix idL = ExactMatrix::identity(L);
  Var query = LinState(qUpdate, idL, idL, zerosVector(L), {}, "query");
  query.setAlwaysPositive();

  // 5. The query element at the current position.
  std::vector<Var> picks;
  for (int i = 0; i < L; ++i) {
    const ConditionalSite site{[&] { return modLIs(i); }, [&] { return query[i]; },
                               [&] {
                                 const Var test = modLIsNot(i);
                                 return optimizedAssign(
                                     test, [&] { return query[i]; }, lambda);
                               }};
    Var pick = conditionalAssign(p.conditional, site, lambda, mu);
    pick.named(indexed("pick", i));
    picks.push_back(pick);
  }
  const Var allPicks = Concat(picks);
  Var qElem = Linear(allPicks, ExactMatrix::filled(1, L, Exact(1)), zerosVector(1), "q_elem");
  qElem.setAlwaysPositive();

  // 6. Does the current key token equal the query token?
  const Var lowEdge = qElem - half;
  const Var notBelow = f_larger(input, lowEdge, mu);
  const Var highEdge = qElem + half;
  const Var notAbove = f_smaller(input, highEdge, mu);
  const Var equal = f_and(notBelow, notAbove, mu);
  Var match = f_and(equal, isCompare, mu);
  match.named("match");
  match.setAlwaysPositive();

  // 7. The last L+1 match bits; all_match when the L older ones are all set.
  std::vector<ExactMatrix::Entry> shift;
  for (int i = 0; i < L; ++i) shift.push_back({i, i + 1, Exact(1)});
  const ExactMatrix S = ExactMatrix::fromEntries(L + 1, L + 1, shift);
  const ExactMatrix e = ExactMatrix::fromEntries(L + 1, 1, {{L, 0, Exact(1)}});
  Var buffer = LinState(match, S, e, zerosVector(L + 1), {}, "buffer");
  buffer.setAlwaysPositive();
  ExactVector sumRow = filledVector(L + 1, Exact(1));
  sumRow[static_cast<size_t>(L)] = Exact(0);
  Var bufferSum =
      Linear(buffer, ExactMatrix::fromDense({sumRow}, L + 1), zerosVector(1), "buffer_sum");
  bufferSum.setAlwaysPositive();
  Var allMatch = f_larger(bufferSum, Lx - half, mu);
  allMatch.named("all_match");

  // 8. Remember where the matching value starts.
  Var mfc = f_and(allMatch, firstCopy, mu);
  mfc.named("mfc");
  mfc.setAlwaysPositive();
  const ConditionalSite startSite{[&] { return mfc; }, [&] { return counter; },
                                  [&] {
                                    const Var test = f_not(mfc);
                                    return optimizedAssign(
                                        test, [&] { return counter; }, lambda);
                                  }};
  Var startUpdate = conditionalAssign(p.conditional, startSite, lambda, mu);
  startUpdate.named("started_on_update");
  Var startedOn = LinState(startUpdate, id1, id1, zerosVector(1), {}, "started_on");
  startedOn.setAlwaysPositive();

  // 9. Copying for L steps from there.
  const Var copyEnd = startedOn + Lx;
  Var copying = f_smaller(counter, copyEnd, mu);
  copying.named("copying");
  Var copyOn = f_and(isCopy, copying, mu);
  copyOn.named("copy_on");

  // 10. modL == i, shared by 11 and 12.
  std::vector<Var> eq;
  for (int i = 0; i < L; ++i) {
    Var e_i = modLIs(i);
    e_i.named(indexed("eq", i));
    eq.push_back(e_i);
  }

  // 11. Registers (built as the reference does: all tests, then all updates, then all
  // states).
  std::vector<Var> should;
  for (int i = 0; i < L; ++i) {
    Var s = f_and(copyOn, eq[static_cast<size_t>(i)], mu);
    s.named(indexed("should", i));
    should.push_back(s);
  }
  std::vector<Var> regUpdates;
  for (int i = 0; i < L; ++i) {
    const Var& s = should[static_cast<size_t>(i)];
    const ConditionalSite site{[&] { return f_larger(s, half, mu); }, [&] { return input; },
                               [&] {
                                 const Var test = f_smaller(s, half, mu);
                                 return optimizedAssign(
                                     test, [&] { return input; }, lambda);
                               }};
    Var upd = conditionalAssign(p.conditional, site, lambda, mu);
    upd.named(indexed("reg_update", i));
    regUpdates.push_back(upd);
  }
  std::vector<Var> regs;
  for (int i = 0; i < L; ++i) {
    Var reg = LinState(regUpdates[static_cast<size_t>(i)], id1, id1, zerosVector(1), {},
                       indexed("reg", i));
    reg.setAlwaysPositive();
    regs.push_back(reg);
  }

  // 12. Output register i at position i.
  std::vector<Var> outs;
  for (int i = 0; i < L; ++i) {
    const Var& e_i = eq[static_cast<size_t>(i)];
    const Var& reg = regs[static_cast<size_t>(i)];
    const ConditionalSite site{[&] { return f_larger(e_i, half, mu); }, [&] { return reg; },
                               [&] {
                                 const Var test = f_smaller(e_i, half, mu);
                                 return optimizedAssign(
                                     test, [&] { return reg; }, lambda);
                               }};
    Var out = conditionalAssign(p.conditional, site, lambda, mu);
    out.named(indexed("out", i));
    outs.push_back(out);
  }
  const Var allOuts = Concat(outs);
  const Var output = Linear(allOuts, ExactMatrix::filled(1, L, Exact(1)), zerosVector(1), "output");
  g.setOutput(output.id());
  return g;
}

}  // namespace lsrl
