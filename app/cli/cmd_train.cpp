// lsrl train NAME --task T [...] -o W.safetensors: trains a seed model's PyTorch twin
// (app/python/lsrl/torch/train.py, which owns the options and their --help). This command
// checks the arguments (app/cli/train_arguments.h), then replaces itself with Python running
// that script (core/seed_models/training_command.h), so its JSON lines stream to the
// terminal and Ctrl-C reaches the script, which saves a checkpoint.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "app/cli/commands.h"
#include "app/cli/train_arguments.h"
#include "core/seed_models/training_command.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdTrain(const Argv& args, std::ostream& out) {
  // Ctrl-C and SIGTERM wait, blocked, from here until the script's driver has its handlers
  // (the mask survives exec): at any moment the run then ends with exit 130 and one line,
  // never with a traceback or a death by the signal.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigset_t before;
  sigprocmask(SIG_BLOCK, &stops, &before);
  try {
    checkTrainArguments(args);
  } catch (...) {
    sigprocmask(SIG_SETMASK, &before, nullptr);
    throw;
  }
  out.flush();
  seed_models::TrainingCommand command = seed_models::trainingCommand(args);
  for (const auto& [name, value] : command.env)
    if (setenv(name.c_str(), value.c_str(), 1) != 0)
      throw Error("cannot set " + name + ": " + std::strerror(errno));
  std::vector<char*> argv;
  for (std::string& a : command.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int why = errno;
  sigprocmask(SIG_SETMASK, &before, nullptr);
  throw Error("cannot start " + command.argv[0] + " for training: " + std::strerror(why));
}

}  // namespace lsrl::cli
