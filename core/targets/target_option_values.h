// The target-architecture options as text, the way `lsrl compile --target` and `lsrl export`
// take them and a model file records them ("target_options"), parsed into TargetOptions
// (targets.h, docs/architectures.md). Shared by the CLI (app/cli/target_options.h adds the
// command-line face), the Python module (lsrl.torch.from_compiled takes the same options
// as keyword arguments) and the explorer (a fine-tuned weights file records them).
//
//   positivity     split|shift   rnn, gated-rnn, gru, lstm: §2.1 split or §2.2 shift
//   box            LO,HI         input box (shift, gru's "pytorch" bound K)
//   horizon        T             sequence horizon (shift, gru "pytorch", hawk's conv window)
//   gru-update     paper|pytorch gru state update (§3.1)
//   stacked        (flag)        gru, lstm: one stacked module (§3.3)
//   hawk-residual  on|off        hawk: residual stream (§5.1)
//
// Errors name each option as the CLI spells it ("--box").
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/targets/targets.h"

namespace lsrl {

// Option name (without "--") -> value text; flags (stacked) have the value "true".
using TargetOptionValues = std::map<std::string, std::string>;

// The option names above, in the order of the table.
const std::vector<std::string>& targetOptionNames();

// "LO,HI" (two numbers of the exact scalar grammar, LO <= HI) into shift.inputLo/Hi.
void parseBoxValue(const std::string& text, ShiftOptions& shift);

// Parses and checks the values for `target`: every value well-formed, every option one that
// `target` uses, and the box and horizon given where the target needs them. Throws
// lsrl::Error naming the option and expected vs got.
TargetOptions parseTargetOptions(Target target, const TargetOptionValues& values);

// Removes box and horizon where `target` (none: no target) does not read them with these
// options: a precision fit reads them too (the constants' input domain).
void dropDomainWhereUnread(const std::optional<Target>& target, TargetOptionValues& values);

// As recorded in a model file's "compiled" metadata ("target_options"), and back; the
// error names `where`.
nlohmann::json targetOptionValuesToJson(const TargetOptionValues& values);
TargetOptionValues targetOptionValuesFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace lsrl
