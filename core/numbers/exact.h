// Exact real numbers of the fields Q(cos 2π/N): the scalars of every LSRL matrix.
//
// Each Exact carries the field it lives in. Arithmetic between values of different
// fields lifts both into the field of the lcm of their conductors (Q(cos 2π/N) is a
// subfield of Q(cos 2π/M) whenever N divides M), so callers never manage fields by
// hand. Zero tests and signs are exact (e-antic decides them with interval
// refinement), which is what lets an exact ReLU be decided exactly.
#pragma once

#include <gmp.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

// Declared, not defined: this header is included almost everywhere (through
// core/graph/matrix.h), so it keeps GMP's C++ layer, e-antic and boost out. Code that
// works with the values' fields or elements includes core/numbers/exact_field.h.
template <class T, class U>
class __gmp_expr;
typedef __gmp_expr<mpz_t, mpz_t> mpz_class;
typedef __gmp_expr<mpq_t, mpq_t> mpq_class;
namespace eantic {
class renf_elem_class;
}

namespace lsrl {

class CosField;

class Exact {
 public:
  Exact();  // zero
  Exact(const Exact& o);
  Exact(Exact&& o) noexcept;
  Exact& operator=(const Exact& o);
  Exact& operator=(Exact&& o) noexcept;
  ~Exact();
  Exact(int v);
  Exact(long v);
  Exact(long long v);
  Exact(const mpz_class& v);
  Exact(const mpq_class& v);
  // A double is a dyadic rational; it is converted exactly (0.5 -> 1/2, but 0.1 ->
  // 3602879701896397/36028797018963968). Use rational() or parse() for 1/10.
  // Non-finite doubles throw lsrl::Error.
  explicit Exact(double v);

  static Exact rational(long long num, long long den);  // den != 0
  static Exact sqrt(long long k);                       // k >= 0
  static Exact cosPi(long long p, long long q);         // cos(p*pi/q), q > 0
  static Exact sinPi(long long p, long long q);         // sin(p*pi/q), q > 0
  // The scalar grammar of the whole project (files, --set, CLI, editor, Python):
  // integers, p/q, decimals with exponents (exact: 1e-3 = 1/1000), sqrt(k),
  // cos(p*pi/q), sin(p*pi/q), unary minus, parentheses, and + - * / of those.
  // Throws lsrl::ParseError naming the position on malformed text.
  static Exact parse(std::string_view text);

  // The field this value lives in, identified by N in Q(cos 2π/N) (N % 4 == 0).
  const CosField& field() const { return *field_; }
  int conductor() const;
  // The same value, as an element of a field whose conductor is a multiple of ours.
  Exact liftedTo(const CosField& target) const;
  const eantic::renf_elem_class& element() const { return v(); }

  bool isZero() const;
  bool isOne() const;
  bool isInteger() const;
  bool isRational() const;
  // Exact sign. Unlike renf_elem_class::sgn() it never modifies this value and it
  // serialises e-antic's refinement of the field's embedding, so const Exacts (and
  // values of one field) may be used from several threads at once.
  int sign() const;
  double toDouble() const;       // nearest double (via e-antic's arb approximation)
  mpq_class toRational() const;  // requires isRational()
  // In the scalar grammar; parse(toString()) == *this. Rationals print as "p/q" or
  // integers; irrational values as a rational combination of cos(k*pi/q) terms.
  std::string toString() const;

  Exact operator-() const;
  Exact& operator+=(const Exact& o);
  Exact& operator-=(const Exact& o);
  Exact& operator*=(const Exact& o);
  Exact& operator/=(const Exact& o);  // throws lsrl::Error on division by zero
  friend Exact operator+(Exact a, const Exact& b) { return a += b; }
  friend Exact operator-(Exact a, const Exact& b) { return a -= b; }
  friend Exact operator*(Exact a, const Exact& b) { return a *= b; }
  friend Exact operator/(Exact a, const Exact& b) { return a /= b; }
  friend bool operator==(const Exact& a, const Exact& b);
  friend std::strong_ordering operator<=>(const Exact& a, const Exact& b);

  // For callers that hold many values of one field (executors): wrap an element that
  // already belongs to `field`.
  Exact(const CosField& field, eantic::renf_elem_class v);

 private:
  // Brings *this and o into one field (lifting as needed) and returns o's element as
  // an element that e-antic can combine with v() (it may live in `scratch`).
  const eantic::renf_elem_class& alignWith(const Exact& o, eantic::renf_elem_class& scratch);

  // The e-antic element, held in place: its size and alignment are checked against
  // e-antic's in exact.cpp, so an Exact costs what the element costs.
  static constexpr std::size_t kElementSize = 88;
  static constexpr std::size_t kElementAlign = 8;
  eantic::renf_elem_class& v() { return *reinterpret_cast<eantic::renf_elem_class*>(element_); }
  const eantic::renf_elem_class& v() const {
    return *reinterpret_cast<const eantic::renf_elem_class*>(element_);
  }

  const CosField* field_;
  alignas(kElementAlign) unsigned char element_[kElementSize];
};

std::ostream& operator<<(std::ostream& os, const Exact& x);

// FLINT keeps per-thread memory pools (integers, constants). A thread that used exact
// numbers releases them before it ends, or they leak: create one ExactThreadScope at
// the top of every worker thread's function.
void releaseThreadExactCaches();
struct ExactThreadScope {
  ExactThreadScope() = default;
  ExactThreadScope(const ExactThreadScope&) = delete;
  ExactThreadScope& operator=(const ExactThreadScope&) = delete;
  ~ExactThreadScope() { releaseThreadExactCaches(); }
};

// The smallest power of two (2^k, k any integer) that is >= v; v > 0. Throws lsrl::Error
// otherwise.
Exact powerOfTwoAtLeast(const Exact& v);

// The smallest conductor N (multiple of 4) whose field holds the constants that a
// scalar text uses (cos/sin of rational multiples of pi, square roots).
long long conductorForCosPi(long long p, long long q);
long long conductorForSinPi(long long p, long long q);
long long conductorForSqrt(long long k);

}  // namespace lsrl
