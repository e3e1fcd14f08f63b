#include "app/cli/python_handover.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/util/error.h"

namespace lsrl::cli {

PythonHandover::PythonHandover() {
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigprocmask(SIG_BLOCK, &stops, &before_);
}

PythonHandover::~PythonHandover() { sigprocmask(SIG_SETMASK, &before_, nullptr); }

void PythonHandover::exec(PythonCommand command, const std::string& what) {
  for (const auto& [name, value] : command.env)
    if (setenv(name.c_str(), value.c_str(), 1) != 0)
      throw Error("cannot set " + name + ": " + std::strerror(errno));
  std::vector<char*> argv;
  for (std::string& a : command.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int why = errno;
  throw Error("cannot start " + command.argv[0] + " for " + what + ": " + std::strerror(why));
}

}  // namespace lsrl::cli
