// A small command-line parser shared by every `lsrl` subcommand: positional
// arguments, `--key value` / `--key=value` options (repeatable ones collected in
// order), boolean flags, and an automatic --help from the declared options.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lsrl::cli {

struct OptionSpec {
  std::string name;       // without the leading "--"
  std::string valueName;  // empty for a boolean flag
  std::string help;
  bool repeatable = false;
};

struct CommandSpec {
  std::string usage;    // e.g. "lsrl run FILE.json --input IN.json [options]"
  std::string summary;  // one paragraph
  std::vector<OptionSpec> options;
  int minPositional = 0;
  int maxPositional = 0;
};

class Args {
 public:
  // Throws lsrl::Error on unknown options, missing values or positional count.
  // Returns std::nullopt when --help was asked for (the help text is in helpText).
  static std::optional<Args> parse(const CommandSpec& spec, const std::vector<std::string>& argv,
                                   std::string& helpText);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = {}) const;
  const std::vector<std::string>& all(const std::string& name) const;
  // --set key=value pairs, in order; a key given twice keeps the last value.
  std::map<std::string, std::string> keyValues(const std::string& name) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

std::string helpFor(const CommandSpec& spec);

// Args::parse for a subcommand: prints the help to `out` and returns std::nullopt when
// --help was asked for.
std::optional<Args> parseOrHelp(const CommandSpec& spec, const std::vector<std::string>& argv,
                                std::ostream& out);

// An integer option value in [lo, hi]; throws lsrl::Error naming `what` otherwise.
int parseIntValue(const std::string& text, const std::string& what, long long lo, long long hi);

// A finite number option value in [lo, hi] ((lo, hi] when loOpen); throws lsrl::Error
// naming `what` otherwise (nan, inf, 1e999, trailing text).
double parseNumberValue(const std::string& text, const std::string& what, double lo, double hi,
                        bool loOpen = false);

// A size in bytes: a whole number with an optional binary unit K, M, G or T (also
// written KiB, MB, ...; 1K = 1024), e.g. "512M", "8G", "1000000". Throws lsrl::Error
// naming `what` for anything else, zero, or more than 2^60 bytes.
uint64_t parseByteSize(const std::string& text, const std::string& what);

// "a,b,c" -> {"a", "b", "c"}; empty items are dropped.
std::vector<std::string> splitList(const std::string& text);

}  // namespace lsrl::cli
