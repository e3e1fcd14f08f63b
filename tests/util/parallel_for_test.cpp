// parallelFor: every index runs exactly once on several threads, the lowest failing index's
// exception is the one rethrown, and small or single-threaded runs stay on the caller.
#include "core/util/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lsrl {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  std::vector<std::atomic<int>> runs(1000);
  parallelFor(
      runs.size(), [&](size_t i) { ++runs[i]; }, 4);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
}

TEST(ParallelFor, UsesSeveralThreads) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> waiting{0};
  // Every body waits until two have started, so one thread alone could not finish.
  parallelFor(
      2,
      [&](size_t) {
        {
          const std::lock_guard lock(mutex);
          ids.insert(std::this_thread::get_id());
        }
        ++waiting;
        while (waiting.load() < 2) std::this_thread::yield();
      },
      2);
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ParallelFor, RethrowsTheLowestFailingIndex) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    try {
      parallelFor(
          64,
          [](size_t i) {
            if (i % 10 == 7) throw std::runtime_error("item " + std::to_string(i));
          },
          8);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "item 7");
    }
  }
}

TEST(ParallelFor, OneThreadOrOneItemRunsOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> seen;
  parallelFor(
      3, [&](size_t) { seen.push_back(std::this_thread::get_id()); }, 1);
  parallelFor(
      1, [&](size_t) { seen.push_back(std::this_thread::get_id()); }, 8);
  parallelFor(
      0, [&](size_t) { seen.push_back(std::this_thread::get_id()); }, 8);
  ASSERT_EQ(seen.size(), 4u);
  for (const std::thread::id id : seen) EXPECT_EQ(id, caller);
}

}  // namespace
}  // namespace lsrl
