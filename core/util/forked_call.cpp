#include "core/util/forked_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>

#include "core/util/error.h"
#include "core/util/fd_write.h"
#include "core/util/subprocess.h"

namespace lsrl {

namespace {

constexpr int kCancelPollMs = 50;

[[noreturn]] void runCopy(const std::function<std::string()>& work, int fd) {
  std::string report;
  try {
    report = '0' + work();
  } catch (const std::exception& e) {
    report = std::string("1") + e.what();
  } catch (...) {
    report = "1unknown error";
  }
  // The report: one status byte ('0' finished, '1' failed), then the text.
  writeAllToFd(fd, report.data(), report.size());
  close(fd);
  _exit(0);  // no atexit handlers or static destructors: they belong to the caller
}

int waitStatus(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

ForkedCallResult callInForkedCopy(const std::function<std::string()>& work, int timeoutMs,
                                  const std::atomic<bool>* cancel) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw Error(std::string("cannot start a worker process: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    const int why = errno;
    close(fds[0]);
    close(fds[1]);
    throw Error(std::string("cannot start a worker process: ") + std::strerror(why));
  }
  if (pid == 0) {
    close(fds[0]);
    runCopy(work, fds[1]);
  }
  close(fds[1]);

  ForkedCallResult result;
  std::string report;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  bool open = true;
  while (open) {
    if (cancel != nullptr && cancel->load()) {
      result.ending = ForkedCallResult::Ending::Cancelled;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.ending = ForkedCallResult::Ending::TimedOut;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, kCancelPollMs)));
    if (ready <= 0) continue;  // a timeout slice, or EINTR
    char buffer[1 << 16];
    const ssize_t k = read(fds[0], buffer, sizeof buffer);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      open = false;
    } else {
      report.append(buffer, static_cast<size_t>(k));
    }
  }
  close(fds[0]);
  if (open) kill(pid, SIGKILL);  // stopped early: the copy is still at work
  const int status = waitStatus(pid);
  if (open) return result;
  if (WIFSIGNALED(status)) {
    result.ending = ForkedCallResult::Ending::Crashed;
    result.signal = WTERMSIG(status);
  } else if (report.empty()) {
    result.ending = ForkedCallResult::Ending::Crashed;  // exited without a report
  } else {
    result.ending =
        report[0] == '0' ? ForkedCallResult::Ending::Finished : ForkedCallResult::Ending::Failed;
    result.output = report.substr(1);
  }
  return result;
}

std::string describeForkedEnding(const ForkedCallResult& result, int timeoutMs) {
  switch (result.ending) {
    case ForkedCallResult::Ending::Finished:
      return "finished";
    case ForkedCallResult::Ending::Failed:
      return "failed: " + result.output;
    case ForkedCallResult::Ending::Crashed:
      return result.signal != 0 ? "crashed (" + describeSignal(result.signal) + ")"
                                : "ended without a result";
    case ForkedCallResult::Ending::TimedOut:
      return "took longer than " + std::to_string(timeoutMs / 1000) + " s and was stopped";
    case ForkedCallResult::Ending::Cancelled:
      return "was cancelled";
  }
  return "ended";
}

}  // namespace lsrl
