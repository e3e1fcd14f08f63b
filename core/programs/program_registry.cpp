#include "core/programs/program_registry.h"

#include <string_view>

#include "core/numbers/exact_field.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& item : items) {
    if (!s.empty()) s += ", ";
    s += item;
  }
  return s;
}

const ProgramInfo& infoFor(std::string_view name) {
  for (const ProgramInfo& info : programInfos()) {
    if (info.name == name) return info;
  }
  std::vector<std::string> names;
  for (const ProgramInfo& info : programInfos()) names.push_back(info.name);
  throw Error("unknown program " + quoteInput(name) + "; valid programs are: " + joined(names));
}

void checkKeys(const std::string& program, const std::map<std::string, std::string>& params) {
  const ProgramInfo& info = infoFor(program);
  for (const auto& [key, value] : params) {
    bool known = false;
    for (const std::string& k : info.keys) known = known || k == key;
    if (!known) {
      throw Error("unknown parameter " + quoteInput(key) + " for program " + program +
                  "; valid parameters are: " + joined(info.keys));
    }
  }
}

Exact parseValue(const std::string& program, const std::string& key, const std::string& text) {
  try {
    return Exact::parse(text);
  } catch (const Error& e) {
    // The parser's message quotes the text (bounded) and says where it stopped.
    throw Error("program " + program + ", parameter " + key + ": " + e.what());
  }
}

Exact positiveValue(const std::string& program, const std::string& key, const std::string& text) {
  const Exact v = parseValue(program, key, text);
  if (v.sign() <= 0) {
    throw Error("program " + program + ", parameter " + key + ": must be positive, got " +
                quoteInput(text));
  }
  return v;
}

int integerValue(const std::string& program, const std::string& key, const std::string& text,
                 int lo, int hi) {
  const Exact v = parseValue(program, key, text);
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.isInteger()) {
    throw Error("program " + program + ", parameter " + key + ": expected an integer in " + range +
                ", got " + quoteInput(text));
  }
  const mpz_class z = v.toRational().get_num();
  if (z < lo || z > hi) {
    throw Error("program " + program + ", parameter " + key + ": expected an integer in " + range +
                ", got " + quoteInput(text));
  }
  return static_cast<int>(z.get_si());
}

Conditional conditionalValue(const std::string& program, const std::string& text) {
  try {
    return parseConditional(text);
  } catch (const Error& e) {
    throw Error("program " + program + ", parameter conditional: " + e.what());
  }
}

}  // namespace

const std::vector<ProgramInfo>& programInfos() {
  static const std::vector<ProgramInfo> infos = {
      {"more_ones", "1 while the prefix has more ones than zeros (paper Fig. 1)", {"mu"}},
      {"vec2vec",
       "universal approximation of continuous f: [0,1]^n -> R^m (paper Lst. 1)",
       {"n", "m", "conditional", "mu", "lambda"}},
      {"tok2tok",
       "universal approximation of token-to-token maps with keys and values of length L "
       "(paper Lst. 2)",
       {"L", "conditional", "mu", "lambda"}},
  };
  return infos;
}

MoreOnesParams moreOnesParams(const std::map<std::string, std::string>& params) {
  const std::string program = "more_ones";
  checkKeys(program, params);
  MoreOnesParams p;
  if (auto it = params.find("mu"); it != params.end()) {
    p.mu = positiveValue(program, "mu", it->second);
  }
  return p;
}

Vec2vecParams vec2vecParams(const std::map<std::string, std::string>& params) {
  const std::string program = "vec2vec";
  checkKeys(program, params);
  Vec2vecParams p;
  for (const auto& [key, value] : params) {
    if (key == "n") p.n = integerValue(program, key, value, 1, kMaxVec2vecDim);
    if (key == "m") p.m = integerValue(program, key, value, 1, kMaxVec2vecDim);
    if (key == "conditional") p.conditional = conditionalValue(program, value);
    if (key == "mu") p.mu = positiveValue(program, key, value);
    if (key == "lambda") p.lambda = positiveValue(program, key, value);
  }
  return p;
}

Tok2tokParams tok2tokParams(const std::map<std::string, std::string>& params) {
  const std::string program = "tok2tok";
  checkKeys(program, params);
  Tok2tokParams p;
  for (const auto& [key, value] : params) {
    if (key == "L") p.L = integerValue(program, key, value, 1, kMaxTok2tokLength);
    if (key == "conditional") p.conditional = conditionalValue(program, value);
    if (key == "mu") p.mu = positiveValue(program, key, value);
    if (key == "lambda") p.lambda = positiveValue(program, key, value);
  }
  return p;
}

ProgramDomain programDomain(const std::string& name) {
  infoFor(name);
  if (name == "more_ones") return {Exact(0), Exact(1), Exact(1), 1024};
  if (name == "vec2vec") return {Exact(-3), Exact(3), std::nullopt, 4096};
  return {Exact(0), Exact(9), Exact(1), 1024};
}

Graph buildProgram(const std::string& name, const std::map<std::string, std::string>& params) {
  infoFor(name);
  if (name == "more_ones") return buildMoreOnes(moreOnesParams(params));
  if (name == "vec2vec") return buildVec2vec(vec2vecParams(params));
  return buildTok2tok(tok2tokParams(params));
}

}  // namespace lsrl
