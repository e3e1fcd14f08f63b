// Running a helper program (the Python interpreter for .py programs) with a time limit:
// its standard output and error are captured, and it is killed (with its process group)
// when the limit passes. POSIX only (fork/exec), like the rest of the project.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lsrl {

struct SubprocessResult {
  int exitCode = -1;  // the exit status; -1 when killed or not started
  bool timedOut = false;
  std::string out, err;  // what it wrote (each capped at 16 MiB)
};

// Runs argv[0] (looked up on PATH) with `argv`, the current environment plus `env`
// (replacing variables of the same name). Throws lsrl::Error if it cannot be started.
SubprocessResult runSubprocess(const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& env, int timeoutMs);

}  // namespace lsrl
