#include "app/cli/precision_options.h"

#include <nlohmann/json.hpp>

#include "app/cli/target_options.h"
#include "core/io/declared_domain.h"
#include "core/precision/certificate.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

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
  const DeclaredDomain d = declaredDomain(programMetadata);
  const std::optional<std::string> declaredBox =
      d.lo && d.hi ? std::optional<std::string>(*d.lo + "," + *d.hi) : std::nullopt;
  PrecisionRequest r;
  if (args.has("precision")) {
    r.precision = parsePrecision(args.get("precision"));
  } else if (d.complete()) {
    r.precision = Precision::Float64;
    r.byDefault = true;
  }
  if (!r.fits()) {
    if (args.has("input-grid")) throw Error("--input-grid needs --precision float64 or fp32");
    return r;
  }
  const std::optional<std::string> box = args.has("box") ? args.get("box") : declaredBox;
  std::optional<int> horizon = d.horizon;
  if (args.has("horizon"))
    horizon = parseIntValue(args.get("horizon"), "--horizon", 1, 1'000'000'000);
  if (!box || !horizon) {
    const std::string missing = !box && !horizon ? "--box LO,HI and --horizon T"
                                : !box           ? "--box LO,HI"
                                                 : "--horizon T";
    throw Error("--precision " + std::string(precisionName(r.precision)) + " needs " + missing +
                ": the constants are fitted to the inputs the model will see (the program "
                "declares no domain)");
  }
  ShiftOptions parsed;
  try {
    parseBoxValue(*box, parsed);
  } catch (const Error& e) {
    if (args.has("box")) throw;
    throw Error(std::string("the program's declared domain (metadata \"domain\".box): ") +
                e.what());
  }
  InputDomain domain;
  domain.lo = parsed.inputLo;
  domain.hi = parsed.inputHi;
  domain.horizon = *horizon;
  const std::optional<std::string> grid = args.has("input-grid") ? args.get("input-grid") : d.grid;
  if (grid) {
    Exact step;
    try {
      step = Exact::parse(*grid);
    } catch (const Error& e) {
      throw Error("--input-grid: " + quoteInput(*grid) + " is not a number (" + e.what() + ")");
    }
    if (step.sign() < 0 || !step.isRational())
      throw Error("--input-grid expects a rational step ≥ 0, got " + quoteInput(*grid));
    if (step.sign() > 0) {
      if (!domain.lo.isRational())
        throw Error("--input-grid needs a rational LO in --box, got " + domain.lo.toString());
      domain.grid = step.toRational();
    }
  }
  r.domain = domain;
  return r;
}

nlohmann::json declaredDomainJson(const Exact& lo, const Exact& hi,
                                  const std::optional<Exact>& grid, int horizon) {
  nlohmann::json j;
  j["box"] = {lo.toString(), hi.toString()};
  j["grid"] = grid ? nlohmann::json(grid->toString()) : nlohmann::json();
  j["horizon"] = horizon;
  return j;
}

nlohmann::json certificateRecord(const ConstantFit& fit, const InputDomain& domain,
                                 Precision precision) {
  return certificateJson(certifyPrecision(fit.graph, fit.analysis, domain, precision));
}

}  // namespace lsrl::cli
