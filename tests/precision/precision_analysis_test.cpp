// The precision pass's analysis (core/precision): value ranges with grids, and the
// least constant each sugar construct needs on a declared input domain.
#include <gtest/gtest.h>

#include "core/graph/sugar.h"
#include "core/numbers/exact_field.h"
#include "core/precision/domain_analysis.h"
#include "core/precision/value_range.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

const ValueRange kTokenRange = ValueRange::grid(Exact(0), Exact(9), 0, 1);

TEST(ValueRange, GridsFollowAffineMapsReluAndProducts) {
  // token − 5/2: on 1/2 + Z, from −5/2 to 13/2; the least value above 0 is 1/2.
  const ValueRange shifted = affine({{Exact(1), &kTokenRange}}, Exact::rational(-5, 2));
  EXPECT_EQ(shifted.lo, Exact::rational(-5, 2));
  EXPECT_EQ(shifted.hi, Exact::rational(13, 2));
  ASSERT_TRUE(shifted.onGrid);
  EXPECT_EQ(shifted.step, 1);
  EXPECT_EQ(*shifted.smallestPositive(), Exact::rational(1, 2));
  EXPECT_EQ(*shifted.largestNonPositive(), Exact::rational(-1, 2));
  EXPECT_EQ(*kTokenRange.largestNonPositive(), Exact(0));
  EXPECT_EQ(shifted.describe(), "[-5/2, 13/2] on 1/2 + 1·Z");
  // 2·token + 3·token' is on Z (gcd 1), 2·token + 4·token' on 2Z.
  EXPECT_EQ(affine({{Exact(2), &kTokenRange}, {Exact(4), &kTokenRange}}, Exact(0)).step, 2);
  EXPECT_EQ(affine({{Exact(2), &kTokenRange}, {Exact(3), &kTokenRange}}, Exact(0)).step, 1);
  // ReLU adds 0 to the set: {−1/2, 1/2, ...} becomes {0, 1/2, 1, ...}.
  const ValueRange r = relu(shifted);
  EXPECT_EQ(r.lo, Exact(0));
  EXPECT_EQ(r.step, mpq_class(1, 2));
  // A continuous term makes the sum continuous; its bounds stay sound.
  const ValueRange unit = ValueRange::interval(Exact(0), Exact(1));
  const ValueRange mixed = affine({{Exact(1), &kTokenRange}, {Exact(-2), &unit}}, Exact(0));
  EXPECT_FALSE(mixed.onGrid);
  EXPECT_EQ(mixed.lo, Exact(-2));
  EXPECT_FALSE(mixed.smallestPositive());
  EXPECT_FALSE(mixed.largestNonPositive());  // continuous across 0
  EXPECT_FALSE(affine({{Exact(1), &kTokenRange}}, Exact(1)).largestNonPositive());  // all > 0
  // Products of {0, 1} and tokens stay on Z; the bounds are the corner products.
  const ValueRange bit = ValueRange::grid(Exact(0), Exact(1), 0, 1);
  EXPECT_TRUE(bit.isBoolean());
  const ValueRange p = product(bit, kTokenRange);
  EXPECT_EQ(p.hi, Exact(9));
  EXPECT_EQ(p.step, 1);
  EXPECT_EQ(rationalGcd(mpq_class(3, 4), mpq_class(1, 6)), mpq_class(1, 12));
  EXPECT_EQ(join(ValueRange::point(Exact(0)), ValueRange::point(Exact(1))).describe(), "{0, 1}");
}

InputDomain tokens(int horizon) { return {Exact(0), Exact(9), mpq_class(1), horizon}; }

const ConstantSite& siteOf(const DomainAnalysis& a, const Graph& g, NodeId output) {
  for (const ConstantSite& s : a.sites) {
    if (g.groups()[static_cast<size_t>(s.topGroup)].output == output) return s;
  }
  throw Error("no site ends in node " + std::to_string(output));
}

TEST(DomainAnalysis, AStepOnTokensNeedsOnlyTheDistanceToItsNearestValue) {
  Graph g;
  const Var x = Input(g, 1);
  const Var larger = f_larger(x, Exact::rational(5, 2));  // μ = 1000 as built
  g.setOutput(larger.id());
  const DomainAnalysis a = analyseDomain(g, tokens(10));
  const ConstantSite& s = siteOf(a, g, larger.id());
  EXPECT_EQ(s.param, "scale");
  EXPECT_EQ(s.value, Exact(1000));
  ASSERT_TRUE(s.least);
  EXPECT_EQ(*s.least, Exact(2)) << s.why;  // 1/(1/2)
  EXPECT_TRUE(a.assumptions.empty());
  EXPECT_TRUE(a.values[static_cast<size_t>(larger.id())][0].isBoolean());
  // The same step on continuous inputs can only be assumed to saturate.
  const DomainAnalysis c = analyseDomain(g, {Exact(0), Exact(9), std::nullopt, 10});
  EXPECT_FALSE(siteOf(c, g, larger.id()).least);
  ASSERT_EQ(c.assumptions.size(), 1u);
  EXPECT_NE(c.assumptions[0].find("continuous across 0"), std::string::npos) << c.assumptions[0];
}

TEST(DomainAnalysis, ConditionalsNeedLambdaAboveTheValuesTheySelect) {
  Graph g;
  const Var x = Input(g, 1);
  const Var one = f_constant(x, {Exact(1)});
  const Var counter =
      LinState(one, ExactMatrix::identity(1), ExactMatrix::identity(1), {Exact(-1)});
  const Var early = f_smaller(counter, Exact::rational(5, 2));
  const Var picked = f_ifelse(early, Operand(counter), Operand(x));
  g.setOutput(picked.id());
  const DomainAnalysis a = analyseDomain(g, tokens(100));
  // The counter runs 0..99 on Z.
  EXPECT_EQ(a.values[static_cast<size_t>(counter.id())][0].describe(), "[0, 99] on Z");
  const ConstantSite& s = siteOf(a, g, picked.id());
  EXPECT_EQ(s.param, "large_constant");
  ASSERT_TRUE(s.least);
  EXPECT_EQ(*s.least, Exact(99)) << s.why;
  EXPECT_EQ(a.values[static_cast<size_t>(picked.id())][0].describe(), "[0, 99] on Z");
  // A condition that is not 0 or 1 proves nothing about λ.
  Graph h;
  const Var y = Input(h, 1);
  const Var half = y * Exact::rational(1, 2);
  h.setOutput(f_ifelse(half, Operand(y), std::nullopt).id());
  const DomainAnalysis b = analyseDomain(h, tokens(3));
  ASSERT_EQ(b.sites.size(), 1u);
  EXPECT_FALSE(b.sites[0].least);
}

TEST(DomainAnalysis, ModuloCountersNeedTheirRotationGap) {
  Graph g;
  const Var x = Input(g, 1);
  const Var m = f_modulo_counter(x, 6);
  g.setOutput(m.id());
  const DomainAnalysis a = analyseDomain(g, tokens(50));
  ASSERT_EQ(a.sites.size(), 1u);  // its inner comparison is covered by its own contract
  EXPECT_EQ(*a.sites[0].least, Exact(1) / (Exact(1) - Exact::cosPi(1, 6)));
  EXPECT_EQ(a.values[static_cast<size_t>(m.id())][0].describe(), "[0, 5] on Z");
}

// A recurrence whose exact powers grow with every step (1/3, 1/9, ...) is not bounded
// forever: the analysis gives up after its time limit, naming the LinState.
TEST(DomainAnalysis, GivesUpOnARecurrenceThatTakesTooLong) {
  Graph g;
  const Var x = Input(g, 1);
  const ExactMatrix A = ExactMatrix::fromDense({{Exact::rational(1, 3), Exact::rational(1, 7)},
                                                {Exact::rational(2, 5), Exact::rational(1, 11)}},
                                               2);
  const Var s = LinState(x, A, ExactMatrix::filled(2, 1, Exact(1)), {Exact(0), Exact(0)});
  g.setOutput(s.id());
  try {
    analyseDomain(g, tokens(1'000'000), 0.2);
    FAIL() << "expected the time limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node " + std::to_string(s.id()) + ": bounding this"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(analyseDomain(g, tokens(20), 0.2));
}

TEST(DomainAnalysis, RefusesEmptyDomainsAndBadGrids) {
  Graph g;
  g.setOutput(Input(g, 1).id());
  EXPECT_THROW(analyseDomain(g, {Exact(1), Exact(0), std::nullopt, 5}), Error);
  EXPECT_THROW(analyseDomain(g, {Exact(0), Exact(1), std::nullopt, 0}), Error);
  EXPECT_THROW(analyseDomain(g, {Exact(0), Exact(1), mpq_class(-1), 5}), Error);
}

}  // namespace
}  // namespace lsrl
