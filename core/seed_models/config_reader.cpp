#include "core/seed_models/config_reader.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/io/json_util.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

using nlohmann::json;

void ConfigReader::bad(const std::string& key, const std::string& what) const {
  throw Error(kind + " config: \"" + key + "\": " + what);
}

int ConfigReader::integer(const json& v, const std::string& key, long long lo, long long hi) const {
  const std::string range =
      "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.is_number_integer()) bad(key, range + ", got " + io::describeJson(v));
  // Unsigned JSON integers (what parsing "0" gives) may not fit a long long.
  const bool tooBig =
      v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi);
  if (tooBig || v.get<long long>() < lo || v.get<long long>() > hi)
    bad(key, range + ", got " + io::describeJson(v));
  return static_cast<int>(v.get<long long>());
}

double ConfigReader::number(const json& v, const std::string& key, double lo, bool loOpen) const {
  const std::string range =
      std::string("expected a finite number ") + (loOpen ? "> " : "≥ ") + json(lo).dump();
  if (!v.is_number()) bad(key, range + ", got " + io::describeJson(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || (loOpen && x == lo))
    bad(key, range + ", got " + io::describeJson(v));
  return x;
}

bool ConfigReader::boolean(const json& v, const std::string& key) const {
  if (!v.is_boolean()) bad(key, "expected true or false, got " + io::describeJson(v));
  return v.get<bool>();
}

}  // namespace lsrl::seed_models
