// The five variants of a conditional assignment in the paper's programs
// (docs/spec/ua-programs.md, "Notation"), and the helper that builds one conditional site.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/sugar.h"

namespace lsrl {

enum class Conditional {
  Direct,
  Optimized,
  StepOptimized,
  Multiplicative,
  MultiplicativeOptimized
};

// "direct", "optimized", "step_optimized", "multiplicative", "multiplicative_optimized".
std::string_view conditionalName(Conditional c);
// Throws lsrl::Error listing the valid names.
Conditional parseConditional(std::string_view name);
const std::vector<Conditional>& allConditionals();
// "direct, optimized, step_optimized, multiplicative, multiplicative_optimized"
std::string conditionalNameList();
std::ostream& operator<<(std::ostream& os, Conditional c);  // its name
// Whether the variant builds Multi nodes (multiplicative and multiplicative_optimized).
bool usesMulti(Conditional c);

struct ConditionalSite {
  // Builds the condition c (the D/S/M/MO forms); called first, once.
  std::function<Var()> condition;
  // Builds (or returns) the value t. Called once for t and, for D and M, once more for
  // the node that `t·0` multiplies: return a fresh Slice there if the site says "built
  // on a second, fresh Slice", or the same shared node otherwise.
  std::function<Var()> value;
  // The O form, written out per site (it uses the complementary test).
  std::function<Var()> optimized;
};

// One conditional site in the chosen variant:
//   D  = f_ifelse(c, t_val=t, f_val=t·0, λ)
//   S  = f_ifelse_step(c, t_val=t, f_val=none, λ, μ)
//   O  = site.optimized()
//   M  = f_ifelse_mul(c, t_val=t, f_val=t·0)
//   MO = f_ifelse_mul(c, t_val=t, f_val=none)
// Creation order: c, then t, then (D, M) the base of t·0 and the `* 0` Linear.
Var conditionalAssign(Conditional variant, const ConditionalSite& site,
                      const Exact& largeConstant = kDefaultLargeConstant,
                      const Exact& scale = kDefaultScale);

// The O form that most sites use: ReLU(test·(−λ) + t), where `test` is 1 exactly when
// the assignment must NOT happen. Builds test, then the Linear, then t, then the sum.
Var optimizedAssign(const Var& test, const std::function<Var()>& value,
                    const Exact& largeConstant = kDefaultLargeConstant);

}  // namespace lsrl
