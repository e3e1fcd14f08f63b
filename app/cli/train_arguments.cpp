#include "app/cli/train_arguments.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "app/cli/args.h"
#include "core/seed_models/seed_model.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

// The ranges train.py's parse_args checks too (its OPTION_RANGES): keep them the same.
struct NumericOption {
  const char* name;
  bool integer;
  double lo;
  double hi;
  bool loOpen;
};
constexpr NumericOption kNumericOptions[] = {
    {"steps", true, 1, 1e9, false},       {"seed", true, 0, INT_MAX, false},
    {"batch", true, 1, 4096, false},      {"warmup", true, 0, 1e9, false},
    {"log-every", true, 1, 1e9, false},   {"eval-samples", true, 0, 1e7, false},
    {"threads", true, 1, 1024, false},    {"lr", false, 0, 10, true},
    {"clip", false, 0, 1e6, true},        {"weight-decay", false, 0, 10, false},
    {"time-limit", false, 0, 1e9, false},
};
// train.py's options that take a text value (skipped, so that a value is not taken for a
// model name or an option).
constexpr const char* kTextOptions[] = {"task", "config", "set", "init", "out", "log", "dtype"};

const NumericOption* numericOption(const std::string& name) {
  for (const NumericOption& o : kNumericOptions)
    if (name == o.name) return &o;
  return nullptr;
}

bool isTextOption(const std::string& name) {
  return std::any_of(std::begin(kTextOptions), std::end(kTextOptions),
                     [&](const char* o) { return name == o; });
}

void checkValue(const NumericOption& o, const std::string& value) {
  const std::string what = std::string("--") + o.name;
  if (o.integer)
    parseIntValue(value, what, static_cast<long long>(o.lo), static_cast<long long>(o.hi));
  else
    parseNumberValue(value, what, o.lo, o.hi, o.loOpen);
}

}  // namespace

void checkTrainArguments(const std::vector<std::string>& args) {
  if (std::any_of(args.begin(), args.end(),
                  [](const std::string& a) { return a == "-h" || a == "--help"; }))
    return;
  std::optional<std::string> model;
  std::optional<std::string> init;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;  // the rest are positional: train.py refuses what it cannot use
    const bool isLong = arg.size() > 2 && arg.starts_with("--");
    if (!isLong && arg != "-o") {
      if (!model && !arg.starts_with("-")) model = arg;
      continue;  // flags and what train.py refuses as unknown
    }
    const size_t eq = arg.find('=');
    const std::string name =
        arg == "-o" ? "out" : arg.substr(2, eq == std::string::npos ? eq : eq - 2);
    const NumericOption* numeric = numericOption(name);
    if (!numeric && !isTextOption(name)) continue;  // --progress, or unknown
    std::string value;
    if (eq != std::string::npos && arg != "-o") {
      value = arg.substr(eq + 1);
    } else {
      if (i + 1 == args.size()) throw Error(arg + " needs a value");
      value = args[++i];
    }
    if (numeric) checkValue(*numeric, value);
    if (name == "init") init = value;
  }
  if (init && model) seed_models::loadSeedModel(*model, *init);  // throws naming the file
}

}  // namespace lsrl::cli
