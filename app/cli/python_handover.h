// `lsrl train` and `lsrl sweep` hand the process over to Python running a module of the
// lsrl package (core/io/python_command.h): exec, so that its output streams to the terminal
// and Ctrl-C reaches the module. Ctrl-C and SIGTERM wait, blocked, from the construction of
// a PythonHandover until the module's driver has its handlers (the mask survives exec): at
// any moment the run then ends the driver's way (exit 130 and one line), never with a
// traceback or a death by the signal.
//
//   PythonHandover handover;          // SIGINT and SIGTERM blocked
//   checkArguments(args);             // throws: the signals are unblocked again
//   handover.exec(command, "training");
#pragma once

#include <signal.h>

#include <string>

#include "core/io/python_command.h"

namespace lsrl::cli {

class PythonHandover {
 public:
  PythonHandover();   // blocks SIGINT and SIGTERM
  ~PythonHandover();  // restores the mask before it (an argument refused, an exec failed)
  PythonHandover(const PythonHandover&) = delete;
  PythonHandover& operator=(const PythonHandover&) = delete;

  // Replaces this process with `command` (its env added to the environment). Throws
  // lsrl::Error "cannot start INTERPRETER for WHAT: why" when that fails.
  [[noreturn]] void exec(PythonCommand command, const std::string& what);

 private:
  sigset_t before_{};
};

}  // namespace lsrl::cli
