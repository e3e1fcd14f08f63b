// The target-architecture options shared by `lsrl compile --target` and `lsrl export`: the
// command-line face of core/targets/target_option_values.h (which parses them, and lists
// them with what each does).
#pragma once

#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/target_option_values.h"

namespace lsrl::cli {

// The OptionSpecs of the options, for a command's CommandSpec.
std::vector<OptionSpec> targetOptionSpecs();

// The target options present in `args`.
TargetOptionValues targetOptionValues(const Args& args);

// compileToWeights (core/targets/compile_to_weights.h), with the CLI option to set added
// to errors about a missing horizon.
CompiledWeights compileToWeightsFromCli(const Graph& program, const WeightsOptions& options,
                                        const TargetOptionValues& values);

}  // namespace lsrl::cli
