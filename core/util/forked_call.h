// Running a computation that may crash, hang or need killing (a Graphviz layout) in a
// forked copy of this process: a crash there cannot take the caller down, and the caller
// can stop it at a deadline or on cancel, which a thread cannot be. Linux only (fork).
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace lsrl {

struct ForkedCallResult {
  enum class Ending { Finished, Failed, Crashed, TimedOut, Cancelled } ending = Ending::Failed;
  std::string output;  // Finished: what `work` returned; Failed: its error message
  int signal = 0;      // Crashed: the signal that ended the copy
};

// Forks; the copy runs `work` (only this thread exists there: `work` must not wait for
// locks other threads may hold) and hands its result back through a pipe. Returns when
// the copy has ended and been reaped: it finished, threw (Failed), died of a signal
// (Crashed), or was killed because `timeoutMs` passed or `*cancel` became true (checked
// every 50 ms). Throws lsrl::Error if the copy cannot be started.
ForkedCallResult callInForkedCopy(const std::function<std::string()>& work, int timeoutMs,
                                  const std::atomic<bool>* cancel = nullptr);

// "crashed with signal 11 (SIGSEGV)", "took longer than 20 s", ...: for messages.
std::string describeForkedEnding(const ForkedCallResult& result, int timeoutMs);

}  // namespace lsrl
