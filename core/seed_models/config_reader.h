// Reading a seed model's JSON config values with errors that name the model and the key:
// "<kind> config: \"<key>\": expected an integer in 1..1000, got 0".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/io/json_util.h"
#include "core/util/quote_input.h"

namespace lsrl::seed_models {

// "Absurd" sizes in a config: more than 10^6 weights, steps or tokens (the largest dimension
// or count a config reader accepts, and the most weights a config may imply).
constexpr long long kMaxElements = 1000000;

struct ConfigReader {
  std::string kind;  // "gateloop", "looped", "mingru", ...

  [[noreturn]] void bad(const std::string& key, const std::string& what) const;
  int integer(const nlohmann::json& v, const std::string& key, long long lo, long long hi) const;
  // A finite number ≥ lo (> lo when loOpen).
  double number(const nlohmann::json& v, const std::string& key, double lo, bool loOpen) const;
  bool boolean(const nlohmann::json& v, const std::string& key) const;
  // A name `fromName` knows (`choices` lists them for the message).
  template <class E>
  E named(const nlohmann::json& v, const std::string& key,
          std::optional<E> (*fromName)(std::string_view), const std::string& choices) const {
    if (!v.is_string()) bad(key, "expected one of " + choices + ", got " + io::describeJson(v));
    const std::optional<E> e = fromName(v.get<std::string>());
    if (!e)
      bad(key, "unknown name " + quoteInput(v.get<std::string>()) + " (expected one of " + choices +
                   ")");
    return *e;
  }
};

}  // namespace lsrl::seed_models
