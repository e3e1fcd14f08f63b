// The fields behind Exact (core/numbers/exact.h): Q(cos 2π/N) as e-antic number fields,
// with GMP's C++ rationals and e-antic's elements. Include this where code works with a
// value's field or element directly (executors, printing, rationals); everything else
// includes exact.h, which keeps these libraries out.
#pragma once

#include <gmpxx.h>

#include <e-antic/renf_elem_class.hpp>
#include <memory>
#include <mutex>

#include "core/numbers/exact.h"

namespace lsrl {

// Q(cos 2π/N) with generator g = 2cos(2π/N). Fields are created once per N and
// live for the whole process; references to them stay valid.
class CosField {
 public:
  // N is rounded up to lcm(4, N); throws lsrl::Error for N < 1 or N > kMaxConductor.
  static const CosField& get(long long N);
  static const CosField& rationals() { return get(4); }
  static const CosField& lcmOf(const CosField& a, const CosField& b);
  static constexpr long long kMaxConductor = 4096;

  int conductor() const { return n_; }
  int degree() const;
  const eantic::renf_class& renf() const { return *k_; }
  eantic::renf_elem_class zero() const;
  eantic::renf_elem_class fromRational(const mpq_class& q) const;
  // cos(2π m / M); M must divide the conductor.
  eantic::renf_elem_class cos2Pi(long long m, long long M) const;
  // Lifts an element of `from` (whose conductor divides ours) into this field.
  eantic::renf_elem_class lift(const eantic::renf_elem_class& x, const CosField& from) const;

  CosField(const CosField&) = delete;
  CosField& operator=(const CosField&) = delete;
  explicit CosField(int n);  // use get()
  ~CosField();

 private:
  friend class Exact;
  friend int signOf(const eantic::renf_elem_class& x, const CosField& field);
  // Guards e-antic's refinement of this field's embedding (see signOf).
  std::mutex& embeddingMutex() const;
  // √p for a prime p; the conductor must be a multiple of 8 (p = 2) or of 4p.
  eantic::renf_elem_class sqrtOfPrime(long long p) const;

  struct Cache;  // the generator g and cos(2πj/N) values, guarded by a mutex

  int n_;
  boost::intrusive_ptr<const eantic::renf_class> k_;
  std::unique_ptr<Cache> cache_;
};

// The sign of an element of `field`, decided exactly and thread-safely (use this rather
// than x.sgn() or x < 0 in code that may run on several threads: e-antic refines the
// enclosures of x and of the field's generator in place while deciding).
int signOf(const eantic::renf_elem_class& x, const CosField& field);

}  // namespace lsrl
