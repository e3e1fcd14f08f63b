#include "core/seed_models/training_command.h"

#include "core/io/python_program.h"

namespace lsrl::seed_models {

namespace {

// Runs the script as __main__, with a clear message when PyTorch is not installed.
constexpr const char* kDriver = R"PY(
import runpy, sys
try:
    import torch  # noqa: F401
except ImportError as e:
    sys.stderr.write("lsrl train: error: training needs PyTorch for %s (Debian: apt-get install "
                     "python3-torch): %s\n" % (sys.executable, e))
    sys.exit(3)
sys.argv = ["lsrl train"] + sys.argv[1:]
runpy.run_module("lsrl.torch.train", run_name="__main__", alter_sys=True)
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
