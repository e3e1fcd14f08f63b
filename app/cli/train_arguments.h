// What `lsrl train` checks itself before it hands its arguments to Python
// (app/python/lsrl/torch/train.py owns the options and their --help): every numeric option
// is in its range, and an --init checkpoint loads (finite weights, metadata of the right
// types, the model named), so that a bad argument is one line naming the option, at once,
// instead of a traceback after the torch import or a run lost at its end.
//
//   checkTrainArguments({"mingru", "--threads", "-4", "-o", "m.safetensors"});
//   // throws lsrl::Error "--threads expects an integer in 1..1024, got \"-4\""
#pragma once

#include <string>
#include <vector>

namespace lsrl::cli {

// Throws lsrl::Error naming the option. Arguments it does not know are left to train.py
// (it checks them, and all of these again, when it is run directly); with -h or --help
// nothing is checked.
void checkTrainArguments(const std::vector<std::string>& args);

}  // namespace lsrl::cli
