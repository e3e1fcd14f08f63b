// The target-architecture options shared by `lsrl compile --target` and `lsrl export`:
// the CLI face of core/targets's TargetOptions (targets.h, docs/architectures.md).
//
//   --positivity split|shift   rnn, gated-rnn, gru, lstm: §2.1 split or §2.2 shift
//   --box LO,HI                input box (shift, gru's "pytorch" bound K)
//   --horizon T                sequence horizon (shift, gru "pytorch", hawk's conv window)
//   --gru-update paper|pytorch gru state update (§3.1)
//   --stacked                  gru, lstm: one stacked module (§3.3)
//   --hawk-residual on|off     hawk: residual stream (§5.1)
//
// The options are kept as the text given (TargetOptionValues), so that `lsrl compile` can
// record them in the model file and `lsrl export` can parse them again with its own.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/targets.h"

namespace lsrl::cli {

// Option name (without "--") -> value text; flags (--stacked) have the value "true".
using TargetOptionValues = std::map<std::string, std::string>;

// The OptionSpecs of the options above, for a command's CommandSpec.
std::vector<OptionSpec> targetOptionSpecs();

// --box "LO,HI" (two numbers of the exact scalar grammar, LO <= HI) into shift.inputLo/Hi.
void parseBoxValue(const std::string& text, ShiftOptions& shift);

// The target options present in `args`.
TargetOptionValues targetOptionValues(const Args& args);

// Parses and checks the values for `target`: every value well-formed, every option one that
// `target` uses, and the box and horizon given where the target needs them. Throws
// lsrl::Error naming the option and expected vs got.
TargetOptions parseTargetOptions(Target target, const TargetOptionValues& values);

// Removes --box and --horizon where `target` (none: no target) does not read them with
// these options: lsrl compile's precision pass reads them too (precision_options.h).
void dropDomainWhereUnread(const std::optional<Target>& target, TargetOptionValues& values);

// As recorded in a model file's "compiled" metadata ("target_options"), and back; the
// error names `where`.
nlohmann::json targetOptionValuesToJson(const TargetOptionValues& values);
TargetOptionValues targetOptionValuesFromJson(const nlohmann::json& j, const std::string& where);

// compileToWeights (core/targets/compile_to_weights.h), with the CLI option to set added
// to errors about a missing horizon.
CompiledWeights compileToWeightsFromCli(const Graph& program, const WeightsOptions& options,
                                        const TargetOptionValues& values);

}  // namespace lsrl::cli
