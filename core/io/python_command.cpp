#include "core/io/python_command.h"

#include <cstdio>

#include "core/io/python_program.h"

namespace lsrl {

namespace {

// `text` as a Python string literal (the driver's source is UTF-8).
std::string pythonString(const std::string& text) {
  std::string literal = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      literal += '\\';
      literal += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      literal += escaped;
    } else {
      literal += c;
    }
  }
  return literal + "\"";
}

// Ctrl-C or SIGTERM before the module takes them over ends the run at once with one line
// and exit 130: nothing is written yet, and an exception raised there could surface inside
// a C extension's initialisation as another error with a traceback.
constexpr const char* kExitAtOnce = R"PY(
    def _stop(signum, frame):
        os.write(2, _interrupted)
        os._exit(_interrupted_exit)

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
)PY";

// Both signals as KeyboardInterrupt, Python's default for Ctrl-C, for a module that handles
// it (cancels its work, says what was kept).
constexpr const char* kKeyboardInterrupt = R"PY(
    def _stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
)PY";

// Takes over the signals, unblocks them (the command may have started Python with both
// blocked, so that none comes before a handler), checks the needed module, then runs the
// module as __main__. The `except` catches a KeyboardInterrupt that came before the
// handlers (started without the signals blocked) or that the module let through.
std::string driver(const PythonModule& m) {
  std::string d = "_command = " + pythonString(m.command) + "\n" +
                  "_interrupted_exit = " + std::to_string(kPythonInterruptedExit) + "\n" +
                  "try:\n"
                  "    import os, signal, sys\n"
                  "    _interrupted = (_command + \": interrupted\\n\").encode()\n";
  d += m.interrupts == PythonInterrupts::kExitAtOnce ? kExitAtOnce : kKeyboardInterrupt;
  d += "    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})\n";
  if (!m.needs.empty()) {
    d += "    try:\n"
         "        import importlib\n"
         "        importlib.import_module(" +
         pythonString(m.needs) +
         ")\n"
         "    except ImportError as e:\n"
         "        sys.stderr.write(\"%s: error: %s for %s (Debian: apt-get install %s): %s\\n\"\n"
         "                         % (_command, " +
         pythonString(m.needsWhat) + ", sys.executable, " + pythonString(m.debianPackage) +
         ", e))\n"
         "        sys.exit(" +
         std::to_string(kPythonMissingModuleExit) + ")\n";
  }
  d += "    import runpy\n"
       "    sys.argv = [_command] + sys.argv[1:]\n"
       "    runpy.run_module(" +
       pythonString(m.module) +
       ", run_name=\"__main__\", alter_sys=True)\n"
       "except KeyboardInterrupt:\n"
       "    import sys\n"
       "    sys.stderr.write(_command + \": interrupted\\n\")\n"
       "    sys.exit(_interrupted_exit)\n";
  return d;
}

}  // namespace

PythonCommand pythonModuleCommand(const PythonModule& module,
                                  const std::vector<std::string>& args) {
  PythonCommand c;
  c.argv = {pythonInterpreter(), "-c", driver(module)};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  c.env["PYTHONPATH"] = lsrlPythonPath();
  return c;
}

}  // namespace lsrl
