// residentBytes/physicalMemoryBytes: what the explorer's compile budget reads.
#include "core/util/memory_use.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace lsrl {
namespace {

TEST(MemoryUse, ResidentGrowsWithTouchedMemoryAndStaysBelowTheMachine) {
  const size_t before = residentBytes();
  const size_t machine = physicalMemoryBytes();
  ASSERT_GT(before, 0u);
  ASSERT_GT(machine, before);
  constexpr size_t kBytes = 200u << 20;
  std::unique_ptr<char[]> block(new char[kBytes]);
  std::memset(block.get(), 1, kBytes);  // touched: resident, not only reserved
  EXPECT_GE(residentBytes(), before + kBytes * 3 / 4);
  EXPECT_EQ(block[kBytes - 1], 1);
}

}  // namespace
}  // namespace lsrl
