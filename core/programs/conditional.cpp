#include "core/programs/conditional.h"

#include "core/util/error.h"

namespace lsrl {

namespace {

struct NamedConditional {
  Conditional value;
  std::string_view name;
};

constexpr NamedConditional kConditionals[] = {
    {Conditional::Direct, "direct"},
    {Conditional::Optimized, "optimized"},
    {Conditional::StepOptimized, "step_optimized"},
    {Conditional::Multiplicative, "multiplicative"},
    {Conditional::MultiplicativeOptimized, "multiplicative_optimized"},
};

}  // namespace

std::string_view conditionalName(Conditional c) {
  for (const auto& nc : kConditionals) {
    if (nc.value == c) return nc.name;
  }
  throw Error("unknown conditional variant " + std::to_string(static_cast<int>(c)));
}

Conditional parseConditional(std::string_view name) {
  for (const auto& nc : kConditionals) {
    if (nc.name == name) return nc.value;
  }
  throw Error("unknown conditional '" + std::string(name) +
              "'; valid values are: " + conditionalNameList());
}

const std::vector<Conditional>& allConditionals() {
  static const std::vector<Conditional> all = [] {
    std::vector<Conditional> v;
    for (const auto& nc : kConditionals) v.push_back(nc.value);
    return v;
  }();
  return all;
}

std::string conditionalNameList() {
  std::string s;
  for (const auto& nc : kConditionals) {
    if (!s.empty()) s += ", ";
    s += nc.name;
  }
  return s;
}

std::ostream& operator<<(std::ostream& os, Conditional c) { return os << conditionalName(c); }

bool usesMulti(Conditional c) {
  return c == Conditional::Multiplicative || c == Conditional::MultiplicativeOptimized;
}

Var conditionalAssign(Conditional variant, const ConditionalSite& site, const Exact& largeConstant,
                      const Exact& scale) {
  if (variant == Conditional::Optimized) {
    if (!site.optimized) throw Error("conditional site has no optimized form");
    return site.optimized();
  }
  if (!site.condition || !site.value) {
    throw Error("conditional site needs a condition and a value");
  }
  const Var c = site.condition();
  const Var t = site.value();
  switch (variant) {
    case Conditional::Direct: {
      const Var base = site.value();
      const Var zero = base * Exact(0);
      return f_ifelse(c, Operand(t), Operand(zero), largeConstant);
    }
    case Conditional::StepOptimized:
      return f_ifelse_step(c, Operand(t), std::nullopt, largeConstant, scale);
    case Conditional::Multiplicative: {
      const Var base = site.value();
      const Var zero = base * Exact(0);
      return f_ifelse_mul(c, t, zero);
    }
    case Conditional::MultiplicativeOptimized:
      return f_ifelse_mul(c, t, std::nullopt);
    case Conditional::Optimized:
      break;
  }
  throw Error("unknown conditional variant " + std::to_string(static_cast<int>(variant)));
}

Var optimizedAssign(const Var& test, const std::function<Var()>& value,
                    const Exact& largeConstant) {
  const Var gate = test * (-largeConstant);
  const Var t = value();
  const Var sum = gate + t;
  return ReLU(sum);
}

}  // namespace lsrl
