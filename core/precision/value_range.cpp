#include "core/precision/value_range.h"

#include <algorithm>

#include "core/numbers/exact_field.h"

namespace lsrl {

namespace {

mpq_class absolute(const mpq_class& q) { return q < 0 ? mpq_class(-q) : q; }

mpz_class floorOf(const mpq_class& q) {
  mpz_class r;
  mpz_fdiv_q(r.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
  return r;
}

mpz_class ceilOf(const mpq_class& q) {
  mpz_class r;
  mpz_cdiv_q(r.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
  return r;
}

const Exact& lesser(const Exact& a, const Exact& b) { return b < a ? b : a; }
const Exact& greater(const Exact& a, const Exact& b) { return a < b ? b : a; }

}  // namespace

mpq_class rationalGcd(const mpq_class& a, const mpq_class& b) {
  const mpq_class x = absolute(a);
  const mpq_class y = absolute(b);
  if (x == 0) return y;
  if (y == 0) return x;
  // gcd(p/q, r/s) = gcd(p·s, r·q) / (q·s)
  mpz_class num;
  mpz_gcd(num.get_mpz_t(), mpz_class(x.get_num() * y.get_den()).get_mpz_t(),
          mpz_class(y.get_num() * x.get_den()).get_mpz_t());
  mpq_class g(num, x.get_den() * y.get_den());
  g.canonicalize();
  return g;
}

ValueRange ValueRange::point(const Exact& v) {
  ValueRange r;
  r.lo = v;
  r.hi = v;
  if (v.isRational()) {
    r.onGrid = true;
    r.offset = v.toRational();
    r.step = 0;
  }
  return r;
}

ValueRange ValueRange::interval(const Exact& lo, const Exact& hi) {
  ValueRange r;
  r.lo = lo;
  r.hi = hi;
  return r;
}

ValueRange ValueRange::grid(const Exact& lo, const Exact& hi, const mpq_class& offset,
                            const mpq_class& step) {
  if (step == 0) {
    // One value; the interval (an over-approximation) must contain it.
    const Exact v(offset);
    if (v < lo || v > hi) return interval(lo, hi);
    return point(v);
  }
  ValueRange r;
  r.onGrid = true;
  r.step = absolute(step);
  r.offset = offset - r.step * mpq_class(floorOf(offset / r.step));  // in [0, step)
  r.lo = lo;
  r.hi = hi;
  if (lo.isRational() && hi.isRational()) {
    const mpq_class first =
        r.offset + r.step * mpq_class(ceilOf((lo.toRational() - r.offset) / r.step));
    const mpq_class last =
        r.offset + r.step * mpq_class(floorOf((hi.toRational() - r.offset) / r.step));
    if (first > last) return interval(lo, hi);  // no grid point: keep the sound interval
    r.lo = Exact(first);
    r.hi = Exact(last);
    if (first == last) return point(r.lo);
  }
  return r;
}

bool ValueRange::isBoolean() const {
  if (lo < Exact(0) || hi > Exact(1)) return false;
  if (isPoint()) return lo.isZero() || lo.isOne();
  return onGrid && step == 1 && offset == 0;
}

Exact ValueRange::maxAbs() const {
  return greater(-lo, hi) < Exact(0) ? Exact(0) : greater(-lo, hi);
}

std::optional<Exact> ValueRange::smallestPositive() const {
  if (hi <= Exact(0)) return std::nullopt;
  if (lo > Exact(0)) return lo;
  if (!onGrid) return std::nullopt;
  if (step == 0) return std::nullopt;  // a point ≤ 0 (lo ≤ 0 = hi would make hi ≤ 0)
  // The first grid point above 0.
  const mpq_class k = mpq_class(floorOf(-offset / step)) + 1;
  return Exact(offset + k * step);
}

std::optional<Exact> ValueRange::largestNonPositive() const {
  if (lo > Exact(0)) return std::nullopt;
  if (hi <= Exact(0)) return hi;
  if (!onGrid || step == 0) return std::nullopt;  // continuous across 0
  // The last grid point at or below 0.
  return Exact(offset + mpq_class(floorOf(-offset / step)) * step);
}

std::string ValueRange::describe() const {
  if (isPoint()) return "{" + lo.toString() + "}";
  if (isBoolean()) return "{0, 1}";
  std::string s = "[" + lo.toString() + ", " + hi.toString() + "]";
  if (!onGrid) return s;
  if (offset == 0 && step == 1) return s + " on Z";
  return s + " on " + (offset == 0 ? std::string() : Exact(offset).toString() + " + ") +
         Exact(step).toString() + "·Z";
}

ValueRange affine(const std::vector<AffineTerm>& terms, const Exact& bias) {
  Exact lo = bias;
  Exact hi = bias;
  bool onGrid = bias.isRational();
  mpq_class offset = onGrid ? bias.toRational() : mpq_class(0);
  mpq_class step = 0;
  for (const AffineTerm& t : terms) {
    const Exact& c = t.coefficient;
    if (c.isZero()) continue;
    const ValueRange& x = *t.range;
    if (c.sign() > 0) {
      lo += c * x.lo;
      hi += c * x.hi;
    } else {
      lo += c * x.hi;
      hi += c * x.lo;
    }
    if (onGrid && x.onGrid && c.isRational()) {
      const mpq_class q = c.toRational();
      offset += q * x.offset;
      step = rationalGcd(step, q * x.step);
    } else {
      onGrid = false;
    }
  }
  if (!onGrid) return ValueRange::interval(lo, hi);
  return ValueRange::grid(lo, hi, offset, step);
}

ValueRange join(const ValueRange& a, const ValueRange& b) {
  const Exact lo = lesser(a.lo, b.lo);
  const Exact hi = greater(a.hi, b.hi);
  if (!a.onGrid || !b.onGrid) return ValueRange::interval(lo, hi);
  const mpq_class step = rationalGcd(rationalGcd(a.step, b.step), a.offset - b.offset);
  return ValueRange::grid(lo, hi, a.offset, step);
}

ValueRange relu(const ValueRange& a) {
  if (a.lo >= Exact(0)) return a;
  if (a.hi <= Exact(0)) return ValueRange::point(Exact(0));
  return join(ValueRange::point(Exact(0)), [&] {
    ValueRange positive = a;
    positive.lo = Exact(0);
    return positive;
  }());
}

ValueRange product(const ValueRange& a, const ValueRange& b) {
  const Exact p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  Exact lo = p[0];
  Exact hi = p[0];
  for (const Exact& v : p) {
    lo = lesser(lo, v);
    hi = greater(hi, v);
  }
  if (!a.onGrid || !b.onGrid) return ValueRange::interval(lo, hi);
  // (o₁ + s₁i)(o₂ + s₂j) = o₁o₂ + o₁s₂j + o₂s₁i + s₁s₂ij
  const mpq_class step =
      rationalGcd(rationalGcd(a.offset * b.step, b.offset * a.step), a.step * b.step);
  return ValueRange::grid(lo, hi, a.offset * b.offset, step);
}

}  // namespace lsrl
