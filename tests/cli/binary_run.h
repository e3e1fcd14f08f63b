// The real `lsrl` binary run as a shell would run it after `ulimit`: in a forked child with
// a resource limit (RLIMIT_FSIZE for `ulimit -f`, RLIMIT_AS for `ulimit -v`), extra
// environment variables and every signal at its default disposition (so SIGXFSZ kills
// unless lsrl itself ignores it), its output and error captured, killed at a deadline
// (a run that blocks fails its test instead of hanging it).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace lsrl::cli::test {

struct BinaryRunOptions {
  std::map<std::string, std::string> env;  // added to (or replacing in) the environment
  int resource = -1;                       // RLIMIT_*, or -1 for no limit
  rlim_t limit = 0;                        // its soft and hard value
  int timeoutMs = 60000;
};

struct BinaryRun {
  int exitCode = -1;  // -1 unless it exited
  int signal = 0;     // the signal that ended it
  bool timedOut = false;
  std::string out, err;
};

// Runs LSRL_CLI_BINARY with `args`; its stdout and stderr go through files in `scratch`
// (a folder of the test's own, outside any limit's reach once written).
inline BinaryRun runBinary(const std::vector<std::string>& args, const BinaryRunOptions& options,
                           const std::string& scratch) {
  std::vector<std::string> argStrings = {LSRL_CLI_BINARY};
  argStrings.insert(argStrings.end(), args.begin(), args.end());
  std::vector<std::string> envStrings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (options.env.count(entry.substr(0, entry.find('='))) == 0) envStrings.push_back(entry);
  }
  for (const auto& [name, value] : options.env) envStrings.push_back(name + "=" + value);
  // Everything the child needs is made before the fork: after it, only exec-safe calls.
  std::vector<char*> argv, envp;
  for (std::string& a : argStrings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string outPath = scratch + "/binary_run.stdout";
  const std::string errPath = scratch + "/binary_run.stderr";

  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return {};
  }
  if (pid == 0) {
    const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(125);
    for (int s = 1; s < NSIG; ++s) ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (options.resource >= 0) {
      const rlimit limit{options.limit, options.limit};
      if (::setrlimit(options.resource, &limit) != 0) ::_exit(126);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }

  BinaryRun run;
  int status = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeoutMs);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      run.timedOut = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) run.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::stringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
  };
  run.out = slurp(outPath);
  run.err = slurp(errPath);
  ::unlink(outPath.c_str());
  ::unlink(errPath.c_str());
  return run;
}

}  // namespace lsrl::cli::test
