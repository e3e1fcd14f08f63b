// Exact numbers in Q(cos 2π/N): the fields, constants (cos, sin, sqrt), arithmetic with
// automatic lifting, comparisons and printing. The scalar parser is in exact_parse.cpp.
//
// Conventions:
// - Field N (N % 4 == 0) is Q(g) with g = 2cos(2π/N), a totally real algebraic integer of
//   degree φ(N)/2. FLINT's arith_cos_minpoly(n) returns the minimal polynomial of
//   cos(2π/n) (not 2cos: n = 3 gives 2x + 1), so we substitute x -> x/2 and divide by
//   the leading coefficient to get the monic integer minimal polynomial of g.
// - N = 4 is Q itself; it is e-antic's trivial field renf_class::make(), the field of
//   every renf_elem_class built from an integer or rational, so Exact(7) costs nothing
//   field-wise and e-antic combines such elements with elements of any field.
// - v_j = 2cos(2πj/N) satisfies v_j = g·v_{j-1} − v_{j-2} (v_0 = 2, v_1 = g); cos2Pi
//   evaluates it with the equivalent doubling rules v_2k = v_k² − 2 and
//   v_2k+1 = v_k·v_k+1 − g (O(log j) field products) and caches the results per field.
#include <arb.h>
#include <e-antic/fmpq_poly_extra.h>
#include <e-antic/renf.h>
#include <flint/arith.h>
#include <flint/fmpq.h>
#include <flint/fmpz_poly.h>
#include <flint/ulong_extras.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <e-antic/renf_class.hpp>
#include <mutex>
#include <numeric>
#include <ostream>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static_assert(sizeof(long) == 8, "gmpxx conversions below assume a 64-bit long");

std::string i128ToString(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  u128 u = negative ? u128(0) - static_cast<u128>(v) : static_cast<u128>(v);
  std::string s;
  while (u != 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

i128 gcd128(i128 a, i128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// lcm(4, n) for n >= 1.
i128 lcmWith4(i128 n) {
  if (n % 4 == 0) return n;
  if (n % 2 == 0) return 2 * n;
  return 4 * n;
}

long long saturate(i128 v) { return v > LLONG_MAX ? LLONG_MAX : static_cast<long long>(v); }

mpz_class mpzFrom(long long v) { return mpz_class(static_cast<long>(v)); }

std::string tooLargeMessage(i128 n) {
  return "number field Q(cos 2π/N) with N=" + i128ToString(n) + " exceeds the limit " +
         std::to_string(CosField::kMaxConductor);
}

// The field Q(g), g = 2cos(2π/n), n >= 8, as an e-antic field with generator "a".
// Also returns the monic minimal polynomial of g (coefficients from degree 0 to d).
boost::intrusive_ptr<const eantic::renf_class> makeCosRenf(int n, std::vector<mpz_class>& minpoly) {
  // The monic integer minimal polynomial of g: FLINT gives the minimal polynomial p of
  // cos(2π/n); q(x) = p(x/2) · 2^d / lead(p).
  fmpz_poly_t p;
  fmpz_poly_init(p);
  arith_cos_minpoly(p, static_cast<ulong>(n));
  const slong d = fmpz_poly_degree(p);
  fmpz_t lead, c;
  fmpz_init(lead);
  fmpz_init(c);
  fmpz_poly_get_coeff_fmpz(lead, p, d);
  for (slong i = 0; i <= d; ++i) {
    fmpz_poly_get_coeff_fmpz(c, p, i);
    fmpz_mul_2exp(c, c, static_cast<ulong>(d - i));
    fmpz_divexact(c, c, lead);
    fmpz_poly_set_coeff_fmpz(p, i, c);
  }
  minpoly.assign(static_cast<size_t>(d + 1), mpz_class());
  for (slong i = 0; i <= d; ++i) fmpz_poly_get_coeff_mpz(minpoly[i].get_mpz_t(), p, i);
  fmpq_poly_t q;
  fmpq_poly_init(q);
  fmpq_poly_set_fmpz_poly(q, p);
  fmpz_clear(c);
  fmpz_clear(lead);
  fmpz_poly_clear(p);

  // The embedding: a ball around g. The conjugates of g are 2cos(2πk/n) for k coprime
  // to n, and the nearest one is k2, the smallest such k above 1; a ball narrower than
  // half that gap isolates g, so no root isolation (e-antic's own check leaks memory) is
  // needed. The power-basis coefficients of q grow like 2^d, so the working precision
  // gets about 2d bits, and the ball is more accurate than that precision so that
  // renf_init need not refine it (slow for large d).
  const slong prec = 2 * d + 128;
  ulong k2 = 2;
  while (std::gcd(k2, static_cast<ulong>(n)) != 1) ++k2;
  fmpq_t angle;
  fmpq_init(angle);
  arb_t emb, other;
  arb_init(emb);
  arb_init(other);
  fmpq_set_si(angle, 2, static_cast<ulong>(n));
  arb_cos_pi_fmpq(emb, angle, prec + 64);
  arb_mul_2exp_si(emb, emb, 1);
  fmpq_set_si(angle, static_cast<slong>(2 * k2), static_cast<ulong>(n));
  arb_cos_pi_fmpq(other, angle, prec + 64);
  arb_mul_2exp_si(other, other, 1);
  arb_sub(other, emb, other, prec + 64);  // the gap to the nearest conjugate
  arf_t gapLow, width;
  arf_init(gapLow);
  arf_init(width);
  arb_get_lbound_arf(gapLow, other, prec + 64);
  arf_set_mag(width, arb_radref(emb));
  arf_mul_2exp_si(width, width, 2);  // 4·radius < gap: the ball holds g alone
  const bool isolated = arf_cmp(width, gapLow) < 0;
  arf_clear(width);
  arf_clear(gapLow);
  arb_clear(other);
  boost::intrusive_ptr<const eantic::renf_class> k;
  if (isolated) {
    renf_t nf;
    renf_init(nf, q, emb, prec);
    nf->prec = 64;  // default precision of element enclosures; e-antic raises it as needed
    k = eantic::renf_class::make(nf, "a");
    renf_clear(nf);
  }
  arb_clear(emb);
  fmpq_clear(angle);
  fmpq_poly_clear(q);
  if (!k) throw Error("cannot isolate 2cos(2π/" + std::to_string(n) + ") among its conjugates");
  return k;
}

constexpr size_t kSlots = CosField::kMaxConductor / 4 + 1;

std::array<std::atomic<const CosField*>, kSlots>& registry() {
  static std::array<std::atomic<const CosField*>, kSlots> slots{};
  return slots;
}

std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

// cos(2π a/M) with 0 <= a < M and gcd(a, M) = 1 (a = 0 only with M = 1).
struct Angle {
  i128 a;
  i128 M;
};

// cos(pπ/q) = cos(2π p/(2q)), q > 0.
Angle reduceCosPi(i128 p, i128 q) {
  const i128 M = 2 * q;
  i128 a = p % M;
  if (a < 0) a += M;
  const i128 g = gcd128(a, M);  // gcd(0, M) = M
  return {a / g, M / g};
}

bool isRationalAngle(const Angle& an) {
  return an.M == 1 || an.M == 2 || an.M == 3 || an.M == 4 || an.M == 6;
}

i128 conductorOf(const Angle& an) { return isRationalAngle(an) ? 4 : lcmWith4(an.M); }

std::string angleText(const char* fn, long long p, long long q) {
  return std::string(fn) + "(" + std::to_string(p) + "*pi/" + std::to_string(q) + ")";
}

Exact cosOfAngle(const Angle& an, const std::string& label) {
  if (isRationalAngle(an)) {
    switch (static_cast<int>(an.M)) {
      case 1:
        return Exact(1);
      case 2:
        return Exact(-1);
      case 3:
        return Exact::rational(-1, 2);
      case 4:
        return Exact(0);
      default:
        return Exact::rational(1, 2);  // M = 6, a = 1 or 5
    }
  }
  const i128 n = conductorOf(an);
  if (n > CosField::kMaxConductor) throw Error(label + ": " + tooLargeMessage(n));
  const CosField& f = CosField::get(static_cast<long long>(n));
  return Exact(f, f.cos2Pi(static_cast<long long>(an.a), static_cast<long long>(an.M)));
}

// k = s² · kf with kf squarefree.
std::pair<long long, long long> squarefreeSplit(long long k) {
  n_factor_t fac;
  n_factor_init(&fac);
  n_factor(&fac, static_cast<ulong>(k), 1);
  long long s = 1, kf = 1;
  for (int i = 0; i < fac.num; ++i) {
    const long long p = static_cast<long long>(fac.p[i]);
    for (int e = 0; e < fac.exp[i] / 2; ++e) s *= p;
    if (fac.exp[i] % 2 != 0) kf *= p;
  }
  return {s, kf};
}

std::string cosTerm(int j, int n) {
  // cos(2πj/n) = cos(pπ/q), p/q = 2j/n in lowest terms.
  int p = 2 * j, q = n;
  const int g = std::gcd(p, q);
  p /= g;
  q /= g;
  std::string s = "cos(";
  if (p != 1) {
    s += std::to_string(p);
    s += '*';
  }
  s += "pi";
  if (q != 1) {
    s += '/';  // (not "/" + to_string(q): GCC 12 -Wrestrict false positive)
    s += std::to_string(q);
  }
  s += ')';
  return s;
}

// x = Σ_i c_i g^i (power basis) rewritten as b_0 + Σ_{j≥1} 2b_j cos(2πj/N): the
// polynomials v_j(g) = 2cos(2πj/N) are monic of degree j, so back-substitution from the
// top degree solves the triangular system. All in integers over the common denominator.
std::string formatIrrational(const CosField& f, const eantic::renf_elem_class& x) {
  const int d = f.degree();
  std::vector<mpz_class> c = x.num_vector();
  c.resize(static_cast<size_t>(d));
  const mpz_class den = x.den();

  // hi = v_{d-1}, lo = v_{d-2} as integer coefficient vectors (length d).
  std::vector<mpz_class> lo(static_cast<size_t>(d)), hi(static_cast<size_t>(d)),
      next(static_cast<size_t>(d));
  lo[0] = 2;  // v_0
  hi[1] = 1;  // v_1 (d >= 2 here)
  auto step = [d](const std::vector<mpz_class>& a, const std::vector<mpz_class>& b,
                  std::vector<mpz_class>& out) {  // out = g·a − b
    for (int i = d - 1; i >= 1; --i) out[i] = a[i - 1] - b[i];
    out[0] = -b[0];
  };
  for (int j = 2; j < d; ++j) {  // (lo, hi) = (v_{j-1}, v_j)
    step(hi, lo, next);
    std::swap(lo, hi);
    std::swap(hi, next);
  }
  std::vector<mpz_class> b(static_cast<size_t>(d));
  for (int j = d - 1; j >= 1; --j) {  // hi = v_j, lo = v_{j-1}
    b[j] = c[j];
    if (b[j] != 0) {
      for (int i = 0; i <= j; ++i) c[i] -= b[j] * hi[i];
    }
    if (j >= 2) {  // v_{j-2} = g·v_{j-1} − v_j
      step(lo, hi, next);
      std::swap(hi, lo);
      std::swap(lo, next);
    }
  }
  b[0] = c[0];

  std::string out;
  auto append = [&out](const mpq_class& coef, const std::string& term) {
    const bool negative = coef < 0;
    const mpq_class mag = negative ? mpq_class(-coef) : coef;
    if (out.empty()) {
      if (negative) out += "-";
    } else {
      out += negative ? " - " : " + ";
    }
    if (term.empty()) {
      out += mag.get_str();
    } else {
      if (mag != 1) out += mag.get_str() + "*";
      out += term;
    }
  };
  if (b[0] != 0) {
    mpq_class q(b[0], den);
    q.canonicalize();
    append(q, "");
  }
  for (int j = 1; j < d; ++j) {
    if (b[j] == 0) continue;
    mpq_class q(2 * b[j], den);
    q.canonicalize();
    append(q, cosTerm(j, f.conductor()));
  }
  return out.empty() ? "0" : out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// CosField

struct CosField::Cache {
  eantic::renf_elem_class g;  // 2cos(2π/N) (0 for N = 4)
  std::mutex mu;
  std::unordered_map<int, eantic::renf_elem_class> cos;  // j in [0, N/2] -> cos(2πj/N)
  std::mutex embedding;                                  // see embeddingMutex()
  std::vector<mpz_class> minpoly;  // monic minimal polynomial of g, degree 0..d (N > 4)
};

CosField::CosField(int n) : n_(n), cache_(std::make_unique<Cache>()) {
  if (n < 4 || n > kMaxConductor || n % 4 != 0) {
    throw Error("CosField(" + std::to_string(n) +
                "): the conductor must be a multiple of 4 in [4, " + std::to_string(kMaxConductor) +
                "]; use CosField::get()");
  }
  if (n == 4) {
    k_ = boost::intrusive_ptr<const eantic::renf_class>(&eantic::renf_class::make());
    cache_->g = eantic::renf_elem_class(*k_, 0);
  } else {
    k_ = makeCosRenf(n, cache_->minpoly);
    cache_->g = k_->gen();
  }
}

CosField::~CosField() = default;

std::mutex& CosField::embeddingMutex() const { return cache_->embedding; }

const CosField& CosField::get(long long N) {
  if (N < 1) throw Error("number field Q(cos 2π/N) needs N >= 1, got N=" + std::to_string(N));
  const i128 n = lcmWith4(N);
  if (n > kMaxConductor) throw Error(tooLargeMessage(n));
  std::atomic<const CosField*>& slot = registry()[static_cast<size_t>(n / 4)];
  if (const CosField* f = slot.load(std::memory_order_acquire)) return *f;
  std::lock_guard<std::mutex> lock(registryMutex());
  if (const CosField* f = slot.load(std::memory_order_relaxed)) return *f;
  const CosField* f = new CosField(static_cast<int>(n));  // immortal by design
  slot.store(f, std::memory_order_release);
  return *f;
}

const CosField& CosField::lcmOf(const CosField& a, const CosField& b) {
  if (&a == &b) return a;
  const long long g = std::gcd(a.n_, b.n_);
  return get(static_cast<long long>(a.n_) / g * b.n_);
}

int CosField::degree() const { return static_cast<int>(k_->degree()); }

eantic::renf_elem_class CosField::zero() const { return eantic::renf_elem_class(*k_); }

eantic::renf_elem_class CosField::fromRational(const mpq_class& q) const {
  return eantic::renf_elem_class(*k_, q);
}

eantic::renf_elem_class CosField::cos2Pi(long long m, long long M) const {
  if (M <= 0 || n_ % M != 0) {
    throw Error("cos(2π·" + std::to_string(m) + "/" + std::to_string(M) +
                ") is not an element of Q(cos 2π/" + std::to_string(n_) +
                "): " + std::to_string(M) + " does not divide " + std::to_string(n_));
  }
  long long r = m % M;
  if (r < 0) r += M;
  int j = static_cast<int>(r * (n_ / M));
  if (j > n_ / 2) j = n_ - j;

  std::lock_guard<std::mutex> lock(cache_->mu);
  auto it = cache_->cos.find(j);
  if (it != cache_->cos.end()) return it->second;
  const eantic::renf_elem_class& g = cache_->g;
  eantic::renf_elem_class a(*k_, 2), b = g;  // (v_k, v_{k+1}), k = 0
  int top = 0;
  while ((j >> top) > 1) ++top;
  for (int bit = j == 0 ? -1 : top; bit >= 0; --bit) {
    if ((j >> bit) & 1) {  // k -> 2k + 1
      a *= b;
      a -= g;
      b *= b;
      b -= 2;
    } else {  // k -> 2k
      b *= a;
      b -= g;
      a *= a;
      a -= 2;
    }
  }
  a /= 2;
  cache_->cos.emplace(j, a);
  return a;
}

eantic::renf_elem_class CosField::sqrtOfPrime(long long p) const {
  // Quadratic Gauss sums, as Σ c_j·v_j with v_j = 2cos(2πj/N), j in [0, N/2]:
  //   √2 = v_{N/8};
  //   p ≡ 1 (mod 4): √p = Σ_{j=1}^{p-1} (j|p) cos(2πj/p) = Σ_{j=1}^{(p-1)/2} (j|p) v_{jN/p};
  //   p ≡ 3 (mod 4): √p = Σ_{j=1}^{p-1} (j|p) sin(2πj/p) = Σ_{j=1}^{(p-1)/2} (j|p) v_{k(j)},
  //     sin(2πj/p) = cos(2π(4j − p)/(4p)), k(j) = (4j − p)·N/(4p) folded into [0, N/2].
  // The terms for j and p − j are equal, hence the half sums.
  if ((p == 2 && n_ % 8 != 0) || (p != 2 && n_ % (4 * p) != 0)) {
    throw Error("sqrt(" + std::to_string(p) + ") is not an element of Q(cos 2π/" +
                std::to_string(n_) + ")");
  }
  const int half = n_ / 2;
  std::vector<long> coef(static_cast<size_t>(half + 1), 0);
  auto fold = [this](long long k) {
    k %= n_;
    if (k < 0) k += n_;
    return static_cast<size_t>(k > n_ / 2 ? n_ - k : k);
  };
  if (p == 2) {
    coef[fold(n_ / 8)] = 1;
  } else {
    for (long long j = 1; j <= (p - 1) / 2; ++j) {
      const int chi = n_jacobi(static_cast<slong>(j), static_cast<ulong>(p));
      const long long k = (p % 4 == 1) ? j * (n_ / p) : (4 * j - p) * (n_ / (4 * p));
      coef[fold(k)] += chi;
    }
  }
  // Σ c_j v_j with v_j as integer coefficient vectors in the power basis of g, from
  // v_j = g·v_{j-1} − v_{j-2} reduced by the monic minimal polynomial: O(N·d).
  const int d = degree();
  const std::vector<mpz_class>& m = cache_->minpoly;
  std::vector<mpz_class> prev(static_cast<size_t>(d)), cur(static_cast<size_t>(d)),
      next(static_cast<size_t>(d)), acc(static_cast<size_t>(d));
  prev[0] = 2;  // v_0
  cur[1] = 1;   // v_1 (d >= 2 for N >= 8)
  size_t last = coef.size();
  while (last > 0 && coef[last - 1] == 0) --last;
  for (size_t j = 0; j < last; ++j) {
    if (j >= 2) {
      const mpz_class top = cur[d - 1];  // g·cur has degree d: reduce by m
      for (int i = d - 1; i >= 1; --i) next[i] = cur[i - 1] - prev[i] - top * m[i];
      next[0] = -prev[0] - top * m[0];
      std::swap(prev, cur);
      std::swap(cur, next);
    }
    const std::vector<mpz_class>& v = j == 0 ? prev : cur;
    if (coef[j] != 0) {
      for (int i = 0; i < d; ++i) acc[i] += coef[j] * v[i];
    }
  }
  // Building an element from coefficients evaluates it at the field's embedding.
  std::lock_guard<std::mutex> lock(cache_->embedding);
  return eantic::renf_elem_class(*k_, acc);
}

eantic::renf_elem_class CosField::lift(const eantic::renf_elem_class& x,
                                       const CosField& from) const {
  if (&from == this) return x;
  if (x.is_rational()) return fromRational(static_cast<mpq_class>(x));
  if (n_ % from.n_ != 0) {
    throw Error("cannot lift an element of Q(cos 2π/" + std::to_string(from.n_) +
                ") into Q(cos 2π/" + std::to_string(n_) + "): " + std::to_string(n_) +
                " is not a multiple of " + std::to_string(from.n_));
  }
  eantic::renf_elem_class h = cos2Pi(1, from.n_);  // from's generator, in this field
  h *= 2;
  const std::vector<mpz_class> c = x.num_vector();
  size_t top = c.size();
  while (top > 1 && c[top - 1] == 0) --top;
  eantic::renf_elem_class r(*k_, c[top - 1]);
  for (size_t i = top - 1; i-- > 0;) {
    r *= h;
    if (c[i] != 0) r += c[i];
  }
  const mpz_class den = x.den();
  if (den != 1) r /= den;
  return r;
}

// ---------------------------------------------------------------------------------------
// Exact: construction

static_assert(std::is_nothrow_move_constructible_v<eantic::renf_elem_class> &&
              std::is_nothrow_move_assignable_v<eantic::renf_elem_class>);

Exact::Exact() : field_(&CosField::rationals()) {
  static_assert(sizeof(eantic::renf_elem_class) == kElementSize &&
                    alignof(eantic::renf_elem_class) == kElementAlign,
                "Exact's in-place storage (exact.h) must match e-antic's element");
  new (element_) eantic::renf_elem_class();
}
Exact::Exact(const Exact& o) : field_(o.field_) { new (element_) eantic::renf_elem_class(o.v()); }
Exact::Exact(Exact&& o) noexcept : field_(o.field_) {
  new (element_) eantic::renf_elem_class(std::move(o.v()));
}
Exact& Exact::operator=(const Exact& o) {
  field_ = o.field_;
  v() = o.v();
  return *this;
}
Exact& Exact::operator=(Exact&& o) noexcept {
  field_ = o.field_;
  v() = std::move(o.v());
  return *this;
}
Exact::~Exact() { v().~renf_elem_class(); }

Exact::Exact(int v) : field_(&CosField::rationals()) { new (element_) eantic::renf_elem_class(v); }
Exact::Exact(long v) : field_(&CosField::rationals()) { new (element_) eantic::renf_elem_class(v); }
Exact::Exact(long long v) : field_(&CosField::rationals()) {
  new (element_) eantic::renf_elem_class(v);
}
Exact::Exact(const mpz_class& v) : field_(&CosField::rationals()) {
  new (element_) eantic::renf_elem_class(v);
}
Exact::Exact(const mpq_class& v) : Exact() {
  mpq_class q(v);
  q.canonicalize();
  this->v() = q;
}

Exact::Exact(double v) : Exact() {
  if (!std::isfinite(v)) {
    throw Error(std::string("non-finite value ") +
                (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")));
  }
  this->v() = mpq_class(v);  // exact: a double is a dyadic rational
}

Exact::Exact(const CosField& field, eantic::renf_elem_class v) : Exact() {
  field_ = &field;
  this->v() = std::move(v);
  if (&this->v().parent() != &field.renf()) {
    if (!this->v().is_rational()) {
      throw Error("Exact: the element does not belong to Q(cos 2π/" +
                  std::to_string(field.conductor()) + ")");
    }
    this->v() = field.fromRational(static_cast<mpq_class>(this->v()));
  }
}

bool Exact::isZero() const { return v().is_zero(); }
bool Exact::isOne() const { return v().is_one(); }
bool Exact::isInteger() const { return v().is_integer(); }
bool Exact::isRational() const { return v().is_rational(); }

Exact Exact::rational(long long num, long long den) {
  if (den == 0) throw Error("rational " + std::to_string(num) + "/0: division by zero");
  mpq_class q(mpzFrom(num), mpzFrom(den));
  q.canonicalize();
  return Exact(q);
}

Exact Exact::sqrt(long long k) {
  if (k < 0) throw Error("sqrt of a negative number: " + std::to_string(k));
  if (k == 0) return Exact();
  const auto [s, kf] = squarefreeSplit(k);
  if (kf == 1) return Exact(s);
  // √kf lives in the field of conductor 4·kf; cached per kf.
  static std::mutex mu;
  static std::unordered_map<long long, Exact> cache;
  Exact root;
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(kf);
    if (it != cache.end()) {
      root = it->second;
      cached = true;
    }
  }
  if (!cached) {
    const i128 n = 4 * static_cast<i128>(kf);
    if (n > CosField::kMaxConductor) {
      throw Error("sqrt(" + std::to_string(k) + "): " + tooLargeMessage(n));
    }
    const CosField& f = CosField::get(static_cast<long long>(n));
    eantic::renf_elem_class r = f.fromRational(mpq_class(1));
    n_factor_t fac;
    n_factor_init(&fac);
    n_factor(&fac, static_cast<ulong>(kf), 1);
    for (int i = 0; i < fac.num; ++i) r *= f.sqrtOfPrime(static_cast<long long>(fac.p[i]));
    root = Exact(f, std::move(r));
    std::lock_guard<std::mutex> lock(mu);
    cache.emplace(kf, root);
  }
  if (s != 1) root *= Exact(s);
  return root;
}

Exact Exact::cosPi(long long p, long long q) {
  if (q <= 0) throw Error("cosPi(p, q) needs q > 0, got q=" + std::to_string(q));
  return cosOfAngle(reduceCosPi(p, q), angleText("cos", p, q));
}

Exact Exact::sinPi(long long p, long long q) {
  if (q <= 0) throw Error("sinPi(p, q) needs q > 0, got q=" + std::to_string(q));
  // sin(pπ/q) = cos(π/2 − pπ/q) = cos((q − 2p)π/(2q))
  return cosOfAngle(
      reduceCosPi(static_cast<i128>(q) - 2 * static_cast<i128>(p), 2 * static_cast<i128>(q)),
      angleText("sin", p, q));
}

long long conductorForCosPi(long long p, long long q) {
  if (q <= 0) throw Error("conductorForCosPi(p, q) needs q > 0, got q=" + std::to_string(q));
  return saturate(conductorOf(reduceCosPi(p, q)));
}

long long conductorForSinPi(long long p, long long q) {
  if (q <= 0) throw Error("conductorForSinPi(p, q) needs q > 0, got q=" + std::to_string(q));
  return saturate(conductorOf(
      reduceCosPi(static_cast<i128>(q) - 2 * static_cast<i128>(p), 2 * static_cast<i128>(q))));
}

long long conductorForSqrt(long long k) {
  if (k < 0) throw Error("conductorForSqrt: sqrt of a negative number: " + std::to_string(k));
  if (k == 0) return 4;
  return saturate(4 * static_cast<i128>(squarefreeSplit(k).second));
}

// ---------------------------------------------------------------------------------------
// Exact: queries

int Exact::conductor() const { return field_->conductor(); }

Exact Exact::liftedTo(const CosField& target) const {
  if (&target == field_) return *this;
  if (v().is_rational()) return Exact(target, target.fromRational(static_cast<mpq_class>(v())));
  return Exact(target, target.lift(v(), *field_));
}

int signOf(const eantic::renf_elem_class& x, const CosField& field) {
  // renf_elem_sgn is pure for rationals and for enclosures that exclude zero; otherwise it
  // re-evaluates x's enclosure and may refine the field's embedding, both in place. So
  // the slow path works on a copy, under the field's lock.
  if (x.is_rational()) return x.sgn();
  const arb_struct* e = x.renf_elem_t()->emb;
  if (!arb_contains_zero(e)) return arf_sgn(arb_midref(e));
  eantic::renf_elem_class tmp(x);
  std::lock_guard<std::mutex> lock(field.embeddingMutex());
  return tmp.sgn();
}

void releaseThreadExactCaches() { flint_cleanup(); }

int Exact::sign() const { return signOf(v(), *field_); }

double Exact::toDouble() const {
  if (v().is_rational()) return static_cast<double>(v());  // no refinement needed
  eantic::renf_elem_class tmp(v());
  std::lock_guard<std::mutex> lock(field_->embeddingMutex());
  return static_cast<double>(tmp);
}

mpq_class Exact::toRational() const {
  if (!v().is_rational()) throw Error("toRational() needs a rational value, got " + toString());
  return static_cast<mpq_class>(v());
}

std::string Exact::toString() const {
  if (v().is_rational()) return static_cast<mpq_class>(v()).get_str();
  return formatIrrational(*field_, v());
}

std::ostream& operator<<(std::ostream& os, const Exact& x) { return os << x.toString(); }

// ---------------------------------------------------------------------------------------
// Exact: arithmetic

const eantic::renf_elem_class& Exact::alignWith(const Exact& o, eantic::renf_elem_class& scratch) {
  if (field_ == o.field_) return o.v();
  if (o.field_->conductor() == 4) return o.v();  // e-antic combines Q with any field
  if (o.v().is_rational()) {
    scratch = field_->fromRational(static_cast<mpq_class>(o.v()));
    return scratch;
  }
  if (v().is_rational()) {
    v() = o.field_->fromRational(static_cast<mpq_class>(v()));
    field_ = o.field_;
    return o.v();
  }
  const CosField& target = CosField::lcmOf(*field_, *o.field_);
  if (&target != field_) {
    v() = target.lift(v(), *field_);
    field_ = &target;
  }
  if (&target == o.field_) return o.v();
  scratch = target.lift(o.v(), *o.field_);
  return scratch;
}

Exact Exact::operator-() const {
  Exact r(*this);
  r.v() = -v();
  return r;
}

Exact& Exact::operator+=(const Exact& o) {
  if (field_ == o.field_) {
    v() += o.v();
  } else {
    eantic::renf_elem_class scratch;
    v() += alignWith(o, scratch);
  }
  return *this;
}

Exact& Exact::operator-=(const Exact& o) {
  if (field_ == o.field_) {
    v() -= o.v();
  } else {
    eantic::renf_elem_class scratch;
    v() -= alignWith(o, scratch);
  }
  return *this;
}

Exact& Exact::operator*=(const Exact& o) {
  if (field_ == o.field_) {
    v() *= o.v();
  } else {
    eantic::renf_elem_class scratch;
    v() *= alignWith(o, scratch);
  }
  return *this;
}

Exact& Exact::operator/=(const Exact& o) {
  if (o.v().is_zero()) throw Error("division by zero");
  if (field_ == o.field_) {
    v() /= o.v();
  } else {
    eantic::renf_elem_class scratch;
    v() /= alignWith(o, scratch);
  }
  return *this;
}

bool operator==(const Exact& a, const Exact& b) {
  if (a.field_ == b.field_) return a.v() == b.v();
  if (b.v().is_rational()) return a.v() == static_cast<mpq_class>(b.v());
  if (a.v().is_rational()) return b.v() == static_cast<mpq_class>(a.v());
  return (a - b).isZero();
}

std::strong_ordering operator<=>(const Exact& a, const Exact& b) {
  // Exact via the sign of the difference (e-antic's operator< would refine a and b in
  // place, which is not safe for values shared between threads).
  int s;
  if (a.field_ == b.field_) {
    if (a.v() == b.v()) return std::strong_ordering::equal;
    s = signOf(a.v() - b.v(), *a.field_);
  } else if (b.v().is_rational()) {
    s = signOf(a.v() - static_cast<mpq_class>(b.v()), *a.field_);
  } else if (a.v().is_rational()) {
    s = -signOf(b.v() - static_cast<mpq_class>(a.v()), *b.field_);
  } else {
    s = (a - b).sign();
  }
  return s < 0 ? std::strong_ordering::less
               : (s > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

Exact powerOfTwoAtLeast(const Exact& v) {
  if (v.sign() <= 0) throw Error("powerOfTwoAtLeast: value must be positive");
  Exact p(1);
  const Exact two(2);
  while (p < v) p *= two;
  while (p / two >= v) p /= two;
  return p;
}

}  // namespace lsrl
