// The sugar library of docs/spec/language.md §2, with the reference implementation's names,
// parameters and lowering order (node counts must match it exactly). Each function
// records itself as a named Group over the primitives it creates, with its
// parameters as scalar-grammar strings.
#pragma once

#include <optional>

#include "core/graph/builder.h"

namespace lsrl {

// Either a node or a scalar constant (broadcast over the other operand's width).
class Operand {
 public:
  Operand(const Var& v) : var_(v) {}
  Operand(const Exact& c) : constant_(c) {}
  Operand(int c) : constant_(Exact(c)) {}
  // Exact conversion of the double (0.5 -> 1/2); without it a double literal would
  // silently convert to int. Use Exact::parse or Exact::rational for 1/10.
  Operand(double c) : constant_(Exact(c)) {}
  bool isVar() const { return var_.valid(); }
  const Var& var() const { return var_; }
  const Exact& constant() const { return constant_; }
  std::string describe() const;  // "node 12" or the constant in the scalar grammar

 private:
  Var var_;
  Exact constant_;
};

// a - b for operands where at least one is a Var (Concat+Linear, or one Linear).
Var subtract(const Operand& a, const Operand& b);

inline const Exact kDefaultScale = Exact(1000);                   // μ
inline const Exact kDefaultLargeConstant = Exact(10000000000LL);  // λ = 1e10

Var f_constant(const Var& x, const ExactVector& value);
Var f_step(const Var& z, const Exact& scale = kDefaultScale);
Var f_bump(const Var& z, const Operand& lb, const Operand& ub, const Exact& scale = kDefaultScale);
Var f_larger(const Operand& x, const Operand& y, const Exact& scale = kDefaultScale);
Var f_smaller(const Operand& x, const Operand& y, const Exact& scale = kDefaultScale);
Var f_eq(const Operand& x, const Operand& y, const Exact& scale = kDefaultScale);
Var f_neq(const Operand& x, const Operand& y, const Exact& scale = kDefaultScale);
Var f_not(const Var& x);
Var f_and(const Var& x, const Var& y, const Exact& scale = kDefaultScale);
Var f_or(const Var& x, const Var& y, const Exact& scale = kDefaultScale);
// "direct" conditional (paper Eq. 7). t or f may be omitted (not both).
Var f_ifelse(const Var& c, const std::optional<Operand>& t, const std::optional<Operand>& f,
             const Exact& largeConstant = kDefaultLargeConstant);
Var f_ifelse_step(const Var& c, const std::optional<Operand>& t, const std::optional<Operand>& f,
                  const Exact& largeConstant = kDefaultLargeConstant,
                  const Exact& scale = kDefaultScale);
// "multiplicative" conditional (paper Eq. 10); c, t, f share one width.
Var f_ifelse_mul(const Var& c, const std::optional<Var>& t, const std::optional<Var>& f);
Var f_ifeq(const Operand& x, const Operand& y, const std::optional<Operand>& t,
           const std::optional<Operand>& f, const Exact& scale = kDefaultScale,
           const Exact& largeConstant = kDefaultLargeConstant);
// t mod n as a scalar, counting tokens from 0. Throws when the one-hot cannot be
// exact at this scale (μ(1 − cos(π/n)) < 1), naming the smallest μ that works.
Var f_modulo_counter(const Var& x, int n, const Exact& scale = kDefaultScale);
Var f_relu_identity(const Var& x);

}  // namespace lsrl
