// How to start training (`lsrl train`, the explorer's Train…): Debian's Python running the
// lsrl package's training script (app/python/lsrl/torch/train.py), found the way Python
// programs are (core/io/python_program.h). A missing PyTorch is reported in one line
// naming the interpreter and the Debian package, instead of a traceback.
//
//   TrainingCommand c = trainingCommand({"mingru", "--steps", "100", "-o", "m.safetensors"});
//   // exec c.argv with c.env added to the environment
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lsrl::seed_models {

struct TrainingCommand {
  std::vector<std::string> argv;           // interpreter, -c, driver, then `args`
  std::map<std::string, std::string> env;  // PYTHONPATH
};

// `args`: what follows `lsrl train` (the model, --task, --steps, ..., -o).
TrainingCommand trainingCommand(const std::vector<std::string>& args);

// The exit code of a training run that Ctrl-C or SIGTERM stopped (after it saved).
inline constexpr int kTrainingInterruptedExit = 130;
// The exit code when PyTorch is missing.
inline constexpr int kTrainingNeedsTorchExit = 3;

}  // namespace lsrl::seed_models
