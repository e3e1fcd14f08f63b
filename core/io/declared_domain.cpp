#include "core/io/declared_domain.h"

#include <nlohmann/json.hpp>

#include "core/io/json_util.h"

namespace lsrl {

namespace {

// A number written as a string or as a JSON integer; an unsigned 2^63 is no long long and
// is left undeclared rather than negated.
std::optional<std::string> valueText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  long long i = 0;
  if (io::jsonInteger(v, i)) return std::to_string(i);
  return std::nullopt;
}

}  // namespace

DeclaredDomain declaredDomain(const nlohmann::json& metadata) {
  DeclaredDomain d;
  if (!metadata.is_object() || !metadata.contains("domain") || !metadata["domain"].is_object())
    return d;
  const nlohmann::json& j = metadata["domain"];
  if (j.contains("box") && j["box"].is_array() && j["box"].size() == 2) {
    const auto lo = valueText(j["box"][0]);
    const auto hi = valueText(j["box"][1]);
    if (lo && hi) {
      d.lo = lo;
      d.hi = hi;
    }
  }
  if (j.contains("grid")) d.grid = valueText(j["grid"]);
  long long h = 0;
  if (j.contains("horizon") && io::jsonInteger(j["horizon"], h) && h >= 1 && h <= 1'000'000'000)
    d.horizon = static_cast<int>(h);
  return d;
}

}  // namespace lsrl
