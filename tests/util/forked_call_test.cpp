// callInForkedCopy: work that crashes, hangs or throws in a forked copy never takes the
// caller down, and a deadline or a cancel really stops it (the explorer's dot layout).
#include "core/util/forked_call.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace lsrl {
namespace {

using Ending = ForkedCallResult::Ending;

TEST(ForkedCall, HandsBackWhatTheWorkReturns) {
  const std::string big(3 << 20, 'x');  // more than a pipe holds at once
  const ForkedCallResult r = callInForkedCopy([&] { return big + "!"; }, 10000);
  EXPECT_EQ(r.ending, Ending::Finished);
  EXPECT_EQ(r.output.size(), big.size() + 1);
  EXPECT_EQ(r.output.back(), '!');
}

TEST(ForkedCall, AnExceptionIsAFailureWithItsMessage) {
  const ForkedCallResult r =
      callInForkedCopy([]() -> std::string { throw std::runtime_error("no layout"); }, 10000);
  EXPECT_EQ(r.ending, Ending::Failed);
  EXPECT_EQ(r.output, "no layout");
  EXPECT_EQ(describeForkedEnding(r, 10000), "failed: no layout");
}

TEST(ForkedCall, ACrashEndsTheCopyOnly) {
  const ForkedCallResult r = callInForkedCopy([]() -> std::string { std::abort(); }, 10000);
  EXPECT_EQ(r.ending, Ending::Crashed);
  EXPECT_NE(describeForkedEnding(r, 10000).find("SIGABRT"), std::string::npos)
      << describeForkedEnding(r, 10000);
}

TEST(ForkedCall, TheDeadlineKillsAHang) {
  const auto start = std::chrono::steady_clock::now();
  const ForkedCallResult r = callInForkedCopy(
      []() -> std::string {
        for (;;) pause();
      },
      300);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.ending, Ending::TimedOut);
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(describeForkedEnding(r, 20000), "took longer than 20 s and was stopped");
}

TEST(ForkedCall, CancellingKillsTheCopy) {
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const ForkedCallResult r = callInForkedCopy(
      []() -> std::string {
        for (;;) pause();
      },
      60000, &cancel);
  canceller.join();
  EXPECT_EQ(r.ending, Ending::Cancelled);
}

}  // namespace
}  // namespace lsrl
