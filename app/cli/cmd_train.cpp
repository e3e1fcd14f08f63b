// lsrl train NAME --task T [...] -o W.safetensors: trains a seed model's PyTorch twin
// (app/python/lsrl/torch/train.py, which owns the options and their --help). This command
// checks the arguments (app/cli/train_arguments.h), then replaces itself with Python running
// that script (core/seed_models/training_command.h, app/cli/python_handover.h), so its JSON
// lines stream to the terminal and Ctrl-C reaches the script, which saves a checkpoint.
#include <ostream>

#include "app/cli/commands.h"
#include "app/cli/python_handover.h"
#include "app/cli/train_arguments.h"
#include "core/seed_models/training_command.h"

namespace lsrl::cli {

int cmdTrain(const Argv& args, std::ostream& out) {
  // Ctrl-C and SIGTERM wait, blocked, from here until the script's driver has its handlers:
  // at any moment the run then ends with exit 130 and one line, never with a traceback or a
  // death by the signal.
  PythonHandover handover;
  checkTrainArguments(args);
  out.flush();
  handover.exec(seed_models::trainingCommand(args), "training");
}

}  // namespace lsrl::cli
