// Running a helper program (the Python interpreter for .py programs) with a real deadline:
// its standard output and error are captured (capped), and when it ends or the limit passes,
// everything it started is killed and reaped, including children that left its process
// group (setsid) or outlived it while holding its pipes. Linux only (fork/exec, a
// child-subreaper supervisor and /proc), like the rest of the project.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lsrl {

struct SubprocessResult {
  int exitCode = -1;  // the exit status; -1 when it was killed by a signal or not started
  int signal = 0;     // the signal that ended it (SIGKILL after a timeout), else 0
  bool timedOut = false;
  std::string out;           // the first kOutputCapture bytes of its standard output
  std::string err;           // the last kErrorTailCapture bytes of its standard error
  long long errDropped = 0;  // bytes of standard error written before `err` and left out
};

constexpr size_t kOutputCapture = 16u << 20;
constexpr size_t kErrorTailCapture = 64u << 10;

// Runs argv[0] (looked up on PATH) with `argv`, the current environment plus `env`
// (replacing variables of the same name). Returns once the program and every process it
// started are gone: at its exit, or `timeoutMs` after the start (then timedOut, SIGKILL).
// Throws lsrl::Error if it cannot be started.
SubprocessResult runSubprocess(const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& env, int timeoutMs);

// "exit 3", "signal 9 (SIGKILL)" or "a timeout": how the program ended, for messages.
std::string describeEnding(const SubprocessResult& result);

// "signal 11 (SIGSEGV, Segmentation fault)".
std::string describeSignal(int signal);

// The last `maxLines` lines of `text`, each cut at `maxLineChars` characters, the whole at
// most `maxChars`, with a note of what was left out: stderr for an error message.
std::string lastLines(const std::string& text, long long droppedBefore, int maxLines = 20,
                      size_t maxLineChars = 300, size_t maxChars = 4000);

}  // namespace lsrl
