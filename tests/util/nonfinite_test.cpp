// The non-finite scan (core/util/nonfinite.h): the first infinity or NaN at every position,
// across the branch-free blocks' edges, and nothing for the largest finite values and
// subnormals; sites ordered by sequence, token, then rank.
#include "core/util/nonfinite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace lsrl {
namespace {

template <class Float>
void expectFoundEverywhere() {
  using Limits = std::numeric_limits<Float>;
  const Float bad[] = {Limits::infinity(), -Limits::infinity(), Limits::quiet_NaN()};
  for (const size_t n :
       {size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{700}}) {
    std::vector<Float> values(n, Limits::max());
    for (size_t i = 0; i < n; i += 2) values[i] = -Limits::denorm_min();
    EXPECT_EQ(firstNonFinite(std::span<const Float>(values)), n) << n;
    for (size_t at = 0; at < n; ++at) {
      for (const Float x : bad) {
        std::vector<Float> v = values;
        v[at] = x;
        if (at + 3 < n) v[at + 3] = Limits::infinity();  // a later one does not count
        ASSERT_EQ(firstNonFinite(std::span<const Float>(v)), at) << n << " " << x;
      }
    }
  }
}

TEST(NonFinite, FirstNonFiniteFloat) { expectFoundEverywhere<float>(); }
TEST(NonFinite, FirstNonFiniteDouble) { expectFoundEverywhere<double>(); }

TEST(NonFinite, SitesAreOrderedAndDescribed) {
  NonFiniteSite a;
  a.sequence = 1;
  a.token = 5;
  a.rank = 2;
  a.where = "node 4 (Linear)";
  a.value = -std::numeric_limits<double>::infinity();
  NonFiniteSite b = a;
  b.rank = 1;
  EXPECT_TRUE(b.before(a));
  b.token = 6;
  EXPECT_TRUE(a.before(b));
  b.sequence = 0;
  EXPECT_TRUE(b.before(a));
  std::optional<NonFiniteSite> first;
  keepEarliest(first, a);
  keepEarliest(first, b);
  keepEarliest(first, a);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->sequence, 0u);
  EXPECT_EQ(a.describe(true),
            "sequence 1, token 5: node 4 (Linear) overflowed to -infinity (component 0)");
  a.value = std::nan("");
  EXPECT_EQ(a.describe(false), "token 5: node 4 (Linear) computed NaN (component 0)");
}

}  // namespace
}  // namespace lsrl
