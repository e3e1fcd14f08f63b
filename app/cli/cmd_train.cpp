// lsrl train NAME --task T [...] -o W.safetensors: trains a seed model's PyTorch twin
// (app/python/lsrl/torch/train.py, which owns the options and their --help). This command
// replaces itself with Python running that script (core/seed_models/training_command.h), so its
// JSON lines stream to the terminal and Ctrl-C reaches the script, which saves a checkpoint.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "app/cli/commands.h"
#include "core/seed_models/training_command.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdTrain(const Argv& args, std::ostream& out) {
  out.flush();
  seed_models::TrainingCommand command = seed_models::trainingCommand(args);
  for (const auto& [name, value] : command.env)
    if (setenv(name.c_str(), value.c_str(), 1) != 0)
      throw Error("cannot set " + name + ": " + std::strerror(errno));
  std::vector<char*> argv;
  for (std::string& a : command.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  throw Error("cannot start " + command.argv[0] + " for training: " + std::strerror(errno));
}

}  // namespace lsrl::cli
