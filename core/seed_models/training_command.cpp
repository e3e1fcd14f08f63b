#include "core/seed_models/training_command.h"

namespace lsrl::seed_models {

TrainingCommand trainingCommand(const std::vector<std::string>& args) {
  // Ctrl-C or SIGTERM in the torch import would surface inside torch's C initialisation as
  // a RuntimeError with a traceback: until the script has its handlers (it saves a
  // checkpoint), they end the run at once, nothing written yet.
  static const PythonModule kTraining = {.command = "lsrl train",
                                         .module = "lsrl.torch.train",
                                         .needs = "torch",
                                         .needsWhat = "training needs PyTorch",
                                         .debianPackage = "python3-torch",
                                         .interrupts = PythonInterrupts::kExitAtOnce};
  return pythonModuleCommand(kTraining, args);
}

}  // namespace lsrl::seed_models
