#include "core/targets/precision_request.h"

#include "core/io/declared_domain.h"
#include "core/io/graph_hash.h"
#include "core/precision/certificate.h"
#include "core/util/error.h"
#include "core/util/parse_integer.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

std::optional<std::string> valueOf(const TargetOptionValues& values, const char* name) {
  const auto it = values.find(name);
  return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace

PrecisionRequest precisionRequest(const std::optional<std::string>& precision,
                                  const TargetOptionValues& values,
                                  const std::optional<std::string>& grid,
                                  const nlohmann::json& programMetadata) {
  const DeclaredDomain d = declaredDomain(programMetadata);
  const std::optional<std::string> declaredBox =
      d.lo && d.hi ? std::optional<std::string>(*d.lo + "," + *d.hi) : std::nullopt;
  const std::optional<std::string> givenBox = valueOf(values, "box");
  const std::optional<std::string> givenHorizon = valueOf(values, "horizon");
  PrecisionRequest r;
  if (precision) {
    r.precision = parsePrecision(*precision);
  } else if (d.complete()) {
    r.precision = Precision::Float64;
    r.byDefault = true;
  }
  if (!r.fits()) {
    if (grid) throw Error("--input-grid needs --precision float64 or fp32");
    return r;
  }
  const std::optional<std::string> box = givenBox ? givenBox : declaredBox;
  std::optional<int> horizon = d.horizon;
  if (givenHorizon) horizon = parseBoundedInt(*givenHorizon, "--horizon", 1, 1'000'000'000);
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
    if (givenBox) throw;
    throw Error(std::string("the program's declared domain (metadata \"domain\".box): ") +
                e.what());
  }
  InputDomain domain;
  domain.lo = parsed.inputLo;
  domain.hi = parsed.inputHi;
  domain.horizon = *horizon;
  const std::optional<std::string> step = grid ? grid : d.grid;
  if (step) {
    Exact s;
    try {
      s = Exact::parse(*step);
    } catch (const Error& e) {
      throw Error("--input-grid: " + quoteInput(*step) + " is not a number (" + e.what() + ")");
    }
    if (s.sign() < 0 || !s.isRational())
      throw Error("--input-grid expects a rational step ≥ 0, got " + quoteInput(*step));
    if (s.sign() > 0) {
      if (!domain.lo.isRational())
        throw Error("--input-grid needs a rational LO in --box, got " + domain.lo.toString());
      domain.grid = s.toRational();
    }
  }
  r.domain = domain;
  return r;
}

nlohmann::json fitForPrecision(Graph& program, PrecisionRequest& request, std::string* note) {
  if (!request.fits()) return nullptr;
  try {
    ConstantFit fit = fitConstants(program, *request.domain, request.precision);
    nlohmann::json record = constantFitJson(fit, *request.domain, request.precision);
    record["fitted_hash"] = graphHash(fit.graph);
    record["certificate"] = certificateJson(
        certifyPrecision(fit.graph, fit.analysis, *request.domain, request.precision));
    program = std::move(fit.graph);
    return record;
  } catch (const Error& e) {
    if (!request.byDefault) throw;
    if (note != nullptr) *note = std::string("constants kept as built (") + e.what() + ")";
    request.precision = Precision::Exact;
    return nullptr;
  }
}

}  // namespace lsrl
