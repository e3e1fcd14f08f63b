#include "core/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "core/util/error.h"
#include "core/util/fd_write.h"

extern char** environ;

namespace lsrl {

namespace {

// How long after the deadline the caller stops waiting for the supervisor itself (it only
// fails to report if it was killed from outside).
constexpr int kSupervisorGraceMs = 10000;

void closeAll(std::initializer_list<int*> fds) {
  for (int* fd : fds) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

// ---- The supervisor: a forked copy of this process, so only async-signal-safe calls. ----

long long nowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void sleepMs(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

// "/proc/self/task/<pid>/children" without snprintf.
void childrenPath(char* out, pid_t pid) {
  const char head[] = "/proc/self/task/";
  const char tail[] = "/children";
  char digits[16];
  int n = 0;
  for (auto v = static_cast<long>(pid); v > 0 || n == 0; v /= 10) digits[n++] = char('0' + v % 10);
  size_t k = 0;
  for (const char* c = head; *c; ++c) out[k++] = *c;
  while (n > 0) out[k++] = digits[--n];
  for (const char* c = tail; *c; ++c) out[k++] = *c;
  out[k] = '\0';
}

// Kills every remaining descendant. As a child subreaper the supervisor inherits each
// orphan, so it kills its listed children until none is left (the kernel reparents a killed
// process's children to it), reaping as it goes. Gives up after ~3 s of a process tree that
// keeps forking; those are then init's.
void killDescendants() {
  char path[64];
  childrenPath(path, getpid());
  const long long stopAt = nowMs() + 3000;
  while (nowMs() < stopAt) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    char buf[4096];
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    long pid = 0;
    for (ssize_t i = 0; i <= n; ++i) {
      if (i < n && buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
      } else if (pid > 0) {
        kill(static_cast<pid_t>(-pid), SIGKILL);  // its group, if it leads one (setsid)
        kill(static_cast<pid_t>(pid), SIGKILL);
        pid = 0;
      }
    }
    int status = 0;
    pid_t reaped = 0;
    while ((reaped = waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (reaped < 0 && errno == ECHILD) return;
    sleepMs(1);
  }
}

struct Ending {
  int32_t timedOut = 0;
  int32_t status = 0;  // waitpid's status of the program
};

[[noreturn]] void supervise(pid_t parent, char* const* args, char* const* envp, int outWrite,
                            int errWrite, int statusWrite, long long deadlineMs) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the caller died before prctl
  const pid_t program = fork();
  if (program < 0) _exit(1);
  if (program == 0) {
    setpgid(0, 0);  // its own group, so that one kill reaches what it started
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(outWrite, STDOUT_FILENO);
    dup2(errWrite, STDERR_FILENO);
    execvpe(args[0], args, envp);
    const char msg[] = "cannot execute the program\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(program, program);  // also here, so the kill below cannot race the child's own call
  close(outWrite);
  close(errWrite);
  const auto programId = static_cast<int32_t>(program);
  writeAllToFd(statusWrite, &programId, sizeof programId);

  Ending ending;
  long pause = 1;
  for (;;) {
    const pid_t r = waitpid(program, &ending.status, WNOHANG);
    if (r == program) break;
    if (r < 0 && errno != EINTR) _exit(1);
    if (nowMs() >= deadlineMs) {
      ending.timedOut = 1;
      kill(-program, SIGKILL);
      kill(program, SIGKILL);
      while (waitpid(program, &ending.status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    sleepMs(pause);
    pause = std::min(pause * 2, 20L);
  }
  writeAllToFd(statusWrite, &ending, sizeof ending);
  kill(-program, SIGKILL);  // what it left running in its group
  killDescendants();        // and what left the group (setsid, daemons)
  _exit(0);
}

// ---- The caller's side. ----

// Reads whatever is ready on `fd` into `sink` by the capture rule of its stream; returns
// false at end of stream.
bool drain(int fd, bool isError, SubprocessResult& result) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const auto len = static_cast<size_t>(n);
  if (!isError) {
    if (result.out.size() < kOutputCapture)
      result.out.append(buffer, std::min(len, kOutputCapture - result.out.size()));
    return true;
  }
  result.err.append(buffer, len);
  if (result.err.size() > 2 * kErrorTailCapture) {  // keep the tail, amortised
    const size_t cut = result.err.size() - kErrorTailCapture;
    result.errDropped += static_cast<long long>(cut);
    result.err.erase(0, cut);
  }
  return true;
}

bool readExactly(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

}  // namespace

SubprocessResult runSubprocess(const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& env, int timeoutMs) {
  if (argv.empty()) throw Error("runSubprocess: no program given");
  // Everything the supervisor needs is built before fork (only async-signal-safe calls after).
  std::vector<std::string> envStrings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (env.count(name) == 0) envStrings.push_back(entry);
  }
  for (const auto& [name, value] : env) envStrings.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (std::string& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argCopy = argv;
  for (std::string& s : argCopy) args.push_back(s.data());
  args.push_back(nullptr);

  int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1}, statusPipe[2] = {-1, -1};
  if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0 ||
      pipe2(statusPipe, O_CLOEXEC) != 0) {
    const int saved = errno;
    closeAll({&outPipe[0], &outPipe[1], &errPipe[0], &errPipe[1], &statusPipe[0], &statusPipe[1]});
    throw Error("cannot start " + argv[0] + ": " + std::strerror(saved));
  }
  const long long deadlineMs = nowMs() + std::max(0, timeoutMs);
  const pid_t parent = getpid();
  const pid_t supervisor = fork();
  if (supervisor < 0) {
    const int saved = errno;
    closeAll({&outPipe[0], &outPipe[1], &errPipe[0], &errPipe[1], &statusPipe[0], &statusPipe[1]});
    throw Error("cannot start " + argv[0] + ": " + std::strerror(saved));
  }
  if (supervisor == 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    close(statusPipe[0]);
    supervise(parent, args.data(), envp.data(), outPipe[1], errPipe[1], statusPipe[1], deadlineMs);
  }
  closeAll({&outPipe[1], &errPipe[1], &statusPipe[1]});

  SubprocessResult result;
  int32_t programId = 0;
  const bool started = readExactly(statusPipe[0], &programId, sizeof programId);
  // Until both pipes close: every writer is gone once the supervisor has killed the tree.
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  int open = 2;
  const long long giveUpAt = deadlineMs + kSupervisorGraceMs;
  while (open > 0) {
    const long long left = giveUpAt - nowMs();
    if (left <= 0) {  // the supervisor itself is stuck or gone: end it all from here
      kill(supervisor, SIGKILL);
      if (started && programId > 0) kill(-programId, SIGKILL);
      result.timedOut = true;
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (!drain(fds[i].fd, i == 1, result)) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (auto& fd : fds)
    if (fd.fd >= 0) close(fd.fd);
  Ending ending;
  const bool reported = started && readExactly(statusPipe[0], &ending, sizeof ending);
  close(statusPipe[0]);
  int supervisorStatus = 0;
  while (waitpid(supervisor, &supervisorStatus, 0) < 0 && errno == EINTR) {
  }
  if (result.err.size() > kErrorTailCapture) {
    const size_t cut = result.err.size() - kErrorTailCapture;
    result.errDropped += static_cast<long long>(cut);
    result.err.erase(0, cut);
  }
  if (!reported) {
    result.signal = SIGKILL;
    return result;
  }
  result.timedOut = result.timedOut || ending.timedOut != 0;
  if (WIFEXITED(ending.status) && !ending.timedOut) result.exitCode = WEXITSTATUS(ending.status);
  if (WIFSIGNALED(ending.status)) result.signal = WTERMSIG(ending.status);
  return result;
}

std::string describeEnding(const SubprocessResult& result) {
  if (result.timedOut) return "a timeout";
  if (result.signal != 0) return describeSignal(result.signal);
  return "exit " + std::to_string(result.exitCode);
}

std::string describeSignal(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  const char* what = strsignal(signal);
  return "signal " + std::to_string(signal) +
         (abbrev ? " (SIG" + std::string(abbrev) + (what ? ", " + std::string(what) : "") + ")"
                 : std::string());
}

std::string lastLines(const std::string& text, long long droppedBefore, int maxLines,
                      size_t maxLineChars, size_t maxChars) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  std::vector<std::string> lines;
  size_t pos = end;
  bool cut = droppedBefore > 0;
  size_t total = 0;
  while (pos > 0) {
    if (static_cast<int>(lines.size()) == maxLines) {
      cut = true;
      break;
    }
    const size_t nl = text.rfind('\n', pos - 1);
    const size_t begin = nl == std::string::npos ? 0 : nl + 1;
    std::string line = text.substr(begin, pos - begin);
    for (char& c : line) {  // a NUL or escape code would cut or garble the message
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = '?';
    }
    if (line.size() > maxLineChars) line = line.substr(0, maxLineChars) + " [...]";
    if (total + line.size() + 1 > maxChars) {
      cut = true;
      break;
    }
    total += line.size() + 1;
    lines.push_back(std::move(line));
    if (nl == std::string::npos) {
      pos = 0;
    } else {
      pos = nl;
    }
  }
  if (pos > 0) cut = true;
  std::string out = cut ? "[earlier output left out]\n" : "";
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    out += *it;
    if (std::next(it) != lines.rend()) out += "\n";
  }
  return out;
}

}  // namespace lsrl
