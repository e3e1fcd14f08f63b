#include "app/cli/args.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "core/util/error.h"
#include "core/util/parse_integer.h"
#include "core/util/quote_input.h"

namespace lsrl::cli {

namespace {

const OptionSpec* findOption(const CommandSpec& spec, const std::string& name) {
  for (const OptionSpec& o : spec.options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

int parseIntValue(const std::string& text, const std::string& what, long long lo, long long hi) {
  return parseBoundedInt(text, what, lo, hi);
}

double parseNumberValue(const std::string& text, const std::string& what, double lo, double hi,
                        bool loOpen) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {  // not a number, or out of a double's range
    used = 0;
  }
  const bool inRange = std::isfinite(v) && (loOpen ? v > lo : v >= lo) && v <= hi;
  if (used == 0 || used != text.size() || !inRange)
    throw Error(what + " expects a finite number " + (loOpen ? "> " : "≥ ") + numberText(lo) +
                " and ≤ " + numberText(hi) + ", got " + quoteInput(text));
  return v;
}

uint64_t parseByteSize(const std::string& text, const std::string& what) {
  const auto fail = [&]() {
    return Error(what + " expects a size such as 512M, 8G or 1000000 (bytes), got " +
                 quoteInput(text));
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) throw fail();
  const uint64_t number = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string tail : {"ib", "b"}) {
    if (unit.size() > tail.size() && unit.ends_with(tail)) {
      unit.resize(unit.size() - tail.size());
      break;
    }
  }
  const std::string prefixes = "kmgt";
  int shift = 0;
  if (unit.size() == 1 && prefixes.find(unit[0]) != std::string::npos) {
    shift = 10 * (1 + static_cast<int>(prefixes.find(unit[0])));
  } else if (!unit.empty() && unit != "b") {
    throw fail();
  }
  constexpr uint64_t kMax = uint64_t{1} << 60;
  if (number == 0 || number > (kMax >> shift)) throw fail();
  return number << shift;
}

std::string helpFor(const CommandSpec& spec) {
  std::ostringstream os;
  os << "usage: " << spec.usage << "\n\n" << spec.summary << "\n";
  if (!spec.options.empty()) os << "\noptions:\n";
  for (const OptionSpec& o : spec.options) {
    std::string left = (o.name.size() == 1 ? "  -" : "  --") + o.name +
                       (o.valueName.empty() ? "" : " " + o.valueName);
    if (left.size() < 28) left.resize(28, ' ');
    os << left << " " << o.help << (o.repeatable ? " (repeatable)" : "") << "\n";
  }
  os << "  --help                       show this help\n";
  return os.str();
}

std::optional<Args> Args::parse(const CommandSpec& spec, const std::vector<std::string>& argv,
                                std::string& helpText) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      helpText = helpFor(spec);
      return std::nullopt;
    }
    // Options are --name; single-letter ones may also be written -o.
    const bool shortOption = arg.size() == 2 && arg[0] == '-' && std::isalpha(arg[1]);
    if (!shortOption && (arg.rfind("--", 0) != 0 || arg == "--")) {
      a.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(shortOption ? 1 : 2);
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* opt = findOption(spec, name);
    if (opt == nullptr) {
      throw Error("unknown option " + quoteInput("--" + name) + " (see --help)");
    }
    if (opt->valueName.empty()) {
      if (value) throw Error("option --" + name + " takes no value");
      a.values_[name].push_back("true");
      continue;
    }
    if (!value) {
      if (i + 1 >= argv.size())
        throw Error("option --" + name + " needs a value " + opt->valueName);
      value = argv[++i];
    }
    if (!opt->repeatable && a.values_.count(name)) {
      throw Error("option --" + name + " given twice");
    }
    a.values_[name].push_back(*value);
  }
  const int n = static_cast<int>(a.positional_.size());
  if (n < spec.minPositional || n > spec.maxPositional) {
    throw Error(
        "expected " +
        (spec.minPositional == spec.maxPositional
             ? std::to_string(spec.minPositional)
             : std::to_string(spec.minPositional) + " to " + std::to_string(spec.maxPositional)) +
        " positional argument(s), got " + std::to_string(n) + "\nusage: " + spec.usage);
  }
  return a;
}

std::optional<Args> parseOrHelp(const CommandSpec& spec, const std::vector<std::string>& argv,
                                std::ostream& out) {
  std::string help;
  std::optional<Args> args = Args::parse(spec, argv, help);
  if (!args) out << help;
  return args;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

const std::vector<std::string>& Args::all(const std::string& name) const {
  static const std::vector<std::string> kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

std::map<std::string, std::string> Args::keyValues(const std::string& name) const {
  std::map<std::string, std::string> kv;
  for (const std::string& s : all(name)) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("--" + name + " expects key=value, got " + quoteInput(s));
    }
    kv[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return kv;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace lsrl::cli
