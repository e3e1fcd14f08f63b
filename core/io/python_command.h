// A Python module of the lsrl package run as a command (`lsrl train`, `lsrl sweep`, the
// explorer's Train…): Debian's Python, found the way Python programs are
// (core/io/python_program.h), running a small driver that takes over Ctrl-C and SIGTERM,
// checks the one module the command needs beyond the standard library (a missing one is
// reported in one line naming the interpreter and the Debian package, exit 3, instead of a
// traceback), then runs the module as __main__ with the command's name as sys.argv[0].
//
//   const PythonModule kSweep = {.command = "lsrl sweep", .module = "lsrl.sweep",
//                                .needs = "distributed",
//                                .needsWhat = "sweeps need Dask's distributed",
//                                .debianPackage = "python3-distributed",
//                                .interrupts = PythonInterrupts::kKeyboardInterrupt};
//   PythonCommand c = pythonModuleCommand(kSweep, {"spec.json", "--workers", "2"});
//   // exec c.argv with c.env added to the environment
//
// The driver unblocks SIGINT and SIGTERM once its handlers are in place, so a caller that
// blocks them before the exec (the mask survives it) loses none to a moment without one.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lsrl {

// What Ctrl-C (SIGINT) and SIGTERM do in the driver.
enum class PythonInterrupts {
  // Until the module installs handlers of its own: one line "NAME: interrupted" and exit
  // 130 at once. For modules that must not see a KeyboardInterrupt in an import (inside
  // torch's C initialisation it surfaces as a RuntimeError with a traceback).
  kExitAtOnce,
  // Python's own KeyboardInterrupt, which the module handles; SIGTERM raises one too. One
  // that the module lets through ends the run with one line "NAME: interrupted", exit 130.
  kKeyboardInterrupt,
};

struct PythonModule {
  std::string command{};        // "lsrl sweep": the messages' prefix and the module's argv[0]
  std::string module{};         // "lsrl.sweep", run as __main__
  std::string needs{};          // a module imported first, "distributed" (empty: none)
  std::string needsWhat{};      // "sweeps need Dask's distributed": the message when it is missing
  std::string debianPackage{};  // "python3-distributed": the message's remedy
  PythonInterrupts interrupts = PythonInterrupts::kExitAtOnce;
};

struct PythonCommand {
  std::vector<std::string> argv;           // interpreter, -c, driver, then the arguments
  std::map<std::string, std::string> env;  // PYTHONPATH (lsrlPythonPath())
};

// `args`: what follows the command's name (`lsrl sweep SPEC.json ...` -> {"SPEC.json", ...}).
PythonCommand pythonModuleCommand(const PythonModule& module, const std::vector<std::string>& args);

// The exit code of a run that Ctrl-C or SIGTERM stopped.
inline constexpr int kPythonInterruptedExit = 130;
// The exit code when PythonModule::needs is missing.
inline constexpr int kPythonMissingModuleExit = 3;

}  // namespace lsrl
