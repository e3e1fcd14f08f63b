// A request to fit a program's constants for an arithmetic (docs/precision.md), from the
// texts `lsrl compile` takes (--precision, --box, --horizon, --input-grid) and the domain
// the program file declares, and the fit itself with the record a compiled model and a
// weights file keep ("precision"). Shared by lsrl compile and Python's
// lsrl.torch.from_compiled, which take the same options (errors name them as the CLI does).
//
//   PrecisionRequest r = precisionRequest("fp32", {{"box", "0,9"}, {"horizon", "40"}}, {}, {});
//   nlohmann::json record = fitForPrecision(program, r);  // program now fitted
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/graph/graph.h"
#include "core/precision/fit_constants.h"
#include "core/targets/target_option_values.h"

namespace lsrl {

struct PrecisionRequest {
  Precision precision = Precision::Exact;
  std::optional<InputDomain> domain;  // set when the constants are fitted
  bool byDefault = false;             // no precision given: from the program's declared domain
  bool fits() const { return precision != Precision::Exact; }
};

// `precision`: "exact", "float64" or "fp32", or nullopt for the default (float64 when the
// program declares a complete domain, else exact). The domain: `values`' "box" and "horizon"
// (the target options' texts), else the declared ones; `grid` (else the declared grid):
// inputs on LO + STEP·Z. Throws lsrl::Error naming what is missing or malformed.
PrecisionRequest precisionRequest(const std::optional<std::string>& precision,
                                  const TargetOptionValues& values,
                                  const std::optional<std::string>& grid,
                                  const nlohmann::json& programMetadata);

// Fits `program`'s constants when `request` asks for it and returns the record (the fit's
// changes and domain, the fitted graph's hash, the margin certificate); null when it does not
// fit. A default request whose fit fails keeps the constants as built: the request becomes
// exact and *note says why; an asked-for fit that fails throws.
nlohmann::json fitForPrecision(Graph& program, PrecisionRequest& request, std::string* note);

}  // namespace lsrl
