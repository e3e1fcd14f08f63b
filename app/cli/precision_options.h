// lsrl compile's precision options: --precision exact|float64|fp32 and the input domain
// the constants are fitted to (--box and --horizon, shared with the target options, and
// --input-grid). A program may declare its domain in its file's metadata ("domain": box,
// grid, horizon; lsrl program writes it for the paper's programs); options given here
// override it. With a declared domain and no --precision, the compile fits the constants
// for float64, so that a default compile's weights answer right in float64
// (docs/precision.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/targets/precision_request.h"

namespace lsrl::cli {

std::vector<OptionSpec> precisionOptionSpecs();  // --precision, --input-grid

// core/targets/precision_request.h's request from the options in `args`. Throws
// lsrl::Error naming what is missing or malformed.
PrecisionRequest precisionRequest(const Args& args, const nlohmann::json& programMetadata);

// The metadata "domain" of a program file, as lsrl program writes it.
nlohmann::json declaredDomainJson(const Exact& lo, const Exact& hi,
                                  const std::optional<Exact>& grid, int horizon);

}  // namespace lsrl::cli
