// How to start training (`lsrl train`, the explorer's Train…): Debian's Python running the
// lsrl package's training script (app/python/lsrl/torch/train.py) as a command of the
// package (core/io/python_command.h). A missing PyTorch is reported in one line naming the
// interpreter and the Debian package, instead of a traceback; Ctrl-C or SIGTERM before the
// script takes them over ends the run at once with one line and exit 130.
//
//   TrainingCommand c = trainingCommand({"mingru", "--steps", "100", "-o", "m.safetensors"});
//   // exec c.argv with c.env added to the environment
#pragma once

#include <string>
#include <vector>

#include "core/io/python_command.h"

namespace lsrl::seed_models {

using TrainingCommand = PythonCommand;  // argv: interpreter, -c, driver, then `args`

// `args`: what follows `lsrl train` (the model, --task, --steps, ..., -o).
TrainingCommand trainingCommand(const std::vector<std::string>& args);

// The exit code of a training run that Ctrl-C or SIGTERM stopped (after it saved).
inline constexpr int kTrainingInterruptedExit = kPythonInterruptedExit;
// The exit code when PyTorch is missing.
inline constexpr int kTrainingNeedsTorchExit = kPythonMissingModuleExit;

}  // namespace lsrl::seed_models
