#include "app/cli/precision_options.h"

#include <nlohmann/json.hpp>

namespace lsrl::cli {

std::vector<OptionSpec> precisionOptionSpecs() {
  return {{"precision", "exact|float64|fp32",
           "fit the program's big constants to the --box/--horizon domain so the weights answer "
           "right in that arithmetic (default: float64 when the program declares its domain, "
           "else exact: constants as built)"},
          {"input-grid", "STEP",
           "inputs lie on LO + STEP·Z (tokens: 1; 0: continuous); lets steps on them be "
           "proved exact with small scales"}};
}

PrecisionRequest precisionRequest(const Args& args, const nlohmann::json& programMetadata) {
  auto given = [&args](const char* name) {
    return args.has(name) ? std::optional<std::string>(args.get(name)) : std::nullopt;
  };
  TargetOptionValues domain;
  for (const char* name : {"box", "horizon"})
    if (args.has(name)) domain[name] = args.get(name);
  return lsrl::precisionRequest(given("precision"), domain, given("input-grid"), programMetadata);
}

nlohmann::json declaredDomainJson(const Exact& lo, const Exact& hi,
                                  const std::optional<Exact>& grid, int horizon) {
  nlohmann::json j;
  j["box"] = {lo.toString(), hi.toString()};
  j["grid"] = grid ? nlohmann::json(grid->toString()) : nlohmann::json();
  j["horizon"] = horizon;
  return j;
}

}  // namespace lsrl::cli
