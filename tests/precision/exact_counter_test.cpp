// The fp32 precision pass's modulo counter (core/precision/exact_counter.h): a one-hot shift
// register in place of the rotation, with the same nodes and the same count at every step,
// computed exactly in fp32; an edited counter is left alone.
#include "core/precision/exact_counter.h"

#include <gtest/gtest.h>

#include "core/executor/executor.h"
#include "core/graph/sugar.h"
#include "core/numbers/exact_field.h"
#include "core/precision/certificate.h"

namespace lsrl {
namespace {

struct Counter {
  Graph g;
  GroupId group = kNoGroup;
};

Counter counter(int n) {
  Counter c;
  const Var x = Input(c.g, 1);
  const Var count = f_modulo_counter(x, n, Exact(1000));
  c.g.setOutput(count.id());
  c.group = c.g.node(count.id()).group;
  return c;
}

std::vector<Exact> counts(const Graph& g, int steps) {
  ExactExecutor ex(g);
  ExactSequence tokens(static_cast<size_t>(steps), ExactVector{Exact(3)});
  std::vector<Exact> out;
  for (const ExactVector& row : ex.run(tokens)) out.push_back(row[0]);
  return out;
}

TEST(ExactCounter, CountsTheSameWithAShiftRegister) {
  for (int n : {3, 5, 7, 21}) {
    Counter c = counter(n);
    const size_t nodes = c.g.nodeCount();
    const std::vector<Exact> before = counts(c.g, 3 * n + 2);
    ASSERT_FALSE(makeCounterExact(c.g, c.group)) << n;
    EXPECT_EQ(c.g.nodeCount(), nodes);
    const std::vector<Exact> after = counts(c.g, 3 * n + 2);
    EXPECT_EQ(after, before) << n;
    for (size_t t = 0; t < after.size(); ++t) EXPECT_EQ(after[t], Exact(static_cast<int>(t) % n));
    // Every coefficient is now dyadic: nothing for fp32 to round.
    const InputDomain d{Exact(0), Exact(9), mpq_class(1), 500};
    const Certificate cert = certifyPrecision(c.g, analyseDomain(c.g, d), d, Precision::Fp32);
    EXPECT_TRUE(cert.safe) << cert.summary();
    EXPECT_EQ(cert.outputError, 0) << n;
  }
}

TEST(ExactCounter, TheRotationIsNotCertifiedInFp32Over500Steps) {
  const Counter c = counter(7);
  const InputDomain d{Exact(0), Exact(9), mpq_class(1), 500};
  const Certificate cert = certifyPrecision(c.g, analyseDomain(c.g, d), d, Precision::Fp32);
  EXPECT_GT(cert.outputError, 0);
}

TEST(ExactCounter, LeavesAloneAnEditedCounterAndSmallDivisors) {
  Counter edited = counter(5);
  const NodeId cycler = edited.g.groups()[static_cast<size_t>(edited.group)].nodes.front();
  edited.g.mutableNode(cycler).init[0] = Exact(2);
  const auto why = makeCounterExact(edited.g, edited.group);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("node " + std::to_string(cycler)), std::string::npos) << *why;
  EXPECT_EQ(edited.g.node(cycler).dim, 2);

  Counter two = counter(2);
  EXPECT_TRUE(makeCounterExact(two.g, two.group));
  EXPECT_EQ(counts(two.g, 4), (std::vector<Exact>{Exact(0), Exact(1), Exact(0), Exact(1)}));
}

}  // namespace
}  // namespace lsrl
