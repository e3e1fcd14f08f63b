#include "core/seed_models/training_command.h"

#include "core/io/python_program.h"

namespace lsrl::seed_models {

namespace {

// Runs the script as __main__, with a clear message when PyTorch is not installed. Ctrl-C
// or SIGTERM before the script takes them over (in the torch import, say) ends the run at
// once with one line and exit 130: nothing is written yet, and an exception raised there
// would surface inside torch's C initialisation as a RuntimeError with a traceback.
// `lsrl train` starts this with both blocked, so that none comes before the handler.
constexpr const char* kDriver = R"PY(
try:
    import os, signal, sys

    def stop(signum, frame):
        os.write(2, b"lsrl train: interrupted\n")
        os._exit(130)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        import torch  # noqa: F401
    except ImportError as e:
        sys.stderr.write("lsrl train: error: training needs PyTorch for %s (Debian: apt-get "
                         "install python3-torch): %s\n" % (sys.executable, e))
        sys.exit(3)
    import runpy
    sys.argv = ["lsrl train"] + sys.argv[1:]
    runpy.run_module("lsrl.torch.train", run_name="__main__", alter_sys=True)
except KeyboardInterrupt:  # started without the signals blocked, before `stop` was in place
    import sys
    sys.stderr.write("lsrl train: interrupted\n")
    sys.exit(130)
)PY";

}  // namespace

TrainingCommand trainingCommand(const std::vector<std::string>& args) {
  TrainingCommand c;
  c.argv = {pythonInterpreter(), "-c", kDriver};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  c.env["PYTHONPATH"] = lsrlPythonPath();
  return c;
}

}  // namespace lsrl::seed_models
