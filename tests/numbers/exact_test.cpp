#include "core/numbers/exact.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <e-antic/renf_class.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/numbers/exact_field.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {
namespace {

constexpr double kPi = 3.14159265358979323846;

Exact P(const char* text) { return Exact::parse(text); }

// The message of the lsrl::Error (or subclass) that f throws; fails the test otherwise.
template <class F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return std::string("ParseError: ") + e.what();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an lsrl::Error";
  return "";
}

#define EXPECT_CONTAINS(haystack, needle)                                                         \
  do {                                                                                            \
    const std::string h_ = (haystack);                                                            \
    EXPECT_NE(h_.find(needle), std::string::npos) << "'" << h_ << "' lacks '" << (needle) << "'"; \
  } while (0)

// Parses text, expecting a ParseError at `position` whose message contains `needle`.
void expectParseError(const std::string& text, size_t position, const std::string& needle) {
  try {
    Exact::parse(text);
    ADD_FAILURE() << "parsed \"" << text << "\" without error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), position) << e.what();
    EXPECT_EQ(e.text(), text);
    const std::string msg = e.what();
    // Long text is quoted bounded around the position (core/util/quote_input.h).
    EXPECT_CONTAINS(msg, "cannot parse " + quoteInput(text, position) + " at position " +
                             std::to_string(position));
    EXPECT_CONTAINS(msg, needle);
  }
}

// ---------------------------------------------------------------------------------------
// Fields

TEST(CosField, FlintMinpolyConventionAndDegrees) {
  // deg Q(cos 2π/N) = φ(N)/2 for N > 4; Q for N = 4.
  EXPECT_EQ(CosField::get(4).degree(), 1);
  EXPECT_EQ(CosField::get(8).degree(), 2);
  EXPECT_EQ(CosField::get(12).degree(), 2);
  EXPECT_EQ(CosField::get(20).degree(), 4);
  EXPECT_EQ(CosField::get(28).degree(), 6);
  EXPECT_EQ(CosField::get(60).degree(), 8);
  EXPECT_EQ(CosField::get(4096).degree(), 1024);
  // The generator is 2cos(2π/N).
  for (int n : {8, 12, 20, 28, 60, 120, 4096}) {
    const CosField& f = CosField::get(n);
    EXPECT_NEAR(static_cast<double>(f.renf().gen()), 2 * std::cos(2 * kPi / n), 1e-12) << n;
  }
}

TEST(CosField, ConductorRoundingAndCaching) {
  EXPECT_EQ(CosField::get(1).conductor(), 4);
  EXPECT_EQ(CosField::get(2).conductor(), 4);
  EXPECT_EQ(CosField::get(3).conductor(), 12);
  EXPECT_EQ(CosField::get(5).conductor(), 20);
  EXPECT_EQ(CosField::get(6).conductor(), 12);
  EXPECT_EQ(CosField::get(10).conductor(), 20);
  EXPECT_EQ(CosField::get(24).conductor(), 24);
  EXPECT_EQ(CosField::get(1023).conductor(), 4092);
  EXPECT_EQ(&CosField::get(3), &CosField::get(12));
  EXPECT_EQ(&CosField::get(6), &CosField::get(12));
  EXPECT_EQ(&CosField::rationals(), &CosField::get(4));
  EXPECT_EQ(&CosField::lcmOf(CosField::get(8), CosField::get(12)), &CosField::get(24));
  EXPECT_EQ(&CosField::lcmOf(CosField::get(20), CosField::get(20)), &CosField::get(20));
  // Integers and rationals live in e-antic's trivial field, which is our N = 4 field.
  EXPECT_EQ(&Exact(5).element().parent(), &CosField::rationals().renf());
}

TEST(CosField, LimitsAreErrors) {
  EXPECT_EQ(errorOf([] { CosField::get(4100); }),
            "number field Q(cos 2π/N) with N=4100 exceeds the limit 4096");
  EXPECT_EQ(errorOf([] { CosField::get(1025); }),
            "number field Q(cos 2π/N) with N=4100 exceeds the limit 4096");
  EXPECT_CONTAINS(errorOf([] { CosField::get(0); }), "N >= 1");
  EXPECT_CONTAINS(errorOf([] { CosField::get(-8); }), "N >= 1");
  EXPECT_CONTAINS(errorOf([] { CosField::get(std::numeric_limits<long long>::max()); }),
                  "exceeds the limit 4096");
  EXPECT_CONTAINS(errorOf([] { CosField::lcmOf(CosField::get(4092), CosField::get(8)); }),
                  "exceeds the limit 4096");
  EXPECT_CONTAINS(errorOf([] { CosField::get(12).cos2Pi(1, 5); }), "5 does not divide 12");
}

TEST(CosField, Cos2PiMatchesDoubles) {
  for (int n : {4, 8, 12, 20, 24, 28, 60, 280}) {
    const CosField& f = CosField::get(n);
    for (int m = -n; m <= 2 * n; m += (n > 60 ? 7 : 1)) {
      const double expected = std::cos(2 * kPi * m / n);
      EXPECT_NEAR(static_cast<double>(f.cos2Pi(m, n)), expected, 1e-12) << m << "/" << n;
    }
  }
  // Values with a smaller denominator M | N.
  const CosField& f = CosField::get(60);
  EXPECT_EQ(Exact(f, f.cos2Pi(1, 6)), Exact::rational(1, 2));
  EXPECT_EQ(Exact(f, f.cos2Pi(1, 4)), Exact(0));
  EXPECT_EQ(Exact(f, f.cos2Pi(3, 6)), Exact(-1));
  EXPECT_EQ(Exact(f, f.cos2Pi(7, 1)), Exact(1));
  // The Chebyshev recurrence: 2cos(jθ)·2cos(θ) = 2cos((j+1)θ) + 2cos((j−1)θ).
  const CosField& big = CosField::get(4096);
  const auto c = [&](long long j) { return Exact(big, big.cos2Pi(j, 4096)); };
  EXPECT_EQ(c(1000) * c(1) * 2, c(1001) + c(999));
  EXPECT_EQ(c(1024), Exact(0));
  EXPECT_EQ(c(2048), Exact(-1));
  EXPECT_NEAR(c(1000).toDouble(), std::cos(2 * kPi * 1000 / 4096), 1e-12);
}

TEST(CosField, LiftPreservesValues) {
  const Exact s5 = Exact::sqrt(5);  // in N = 20
  ASSERT_EQ(s5.conductor(), 20);
  const Exact x = s5 * s5 * s5 + Exact::rational(1, 7) * s5 - Exact::cosPi(1, 5);
  for (int n : {20, 40, 60, 140, 4080}) {
    const Exact y = x.liftedTo(CosField::get(n));
    EXPECT_EQ(y.conductor(), n);
    EXPECT_EQ(y, x);
    EXPECT_NEAR(y.toDouble(), x.toDouble(), 1e-12);
  }
  EXPECT_CONTAINS(errorOf([&] { x.liftedTo(CosField::get(24)); }), "not a multiple of 20");
  // Rational values lift anywhere.
  EXPECT_EQ(Exact::rational(2, 3).liftedTo(CosField::get(28)).conductor(), 28);
  EXPECT_EQ(Exact::rational(2, 3).liftedTo(CosField::get(28)), Exact::rational(2, 3));
}

// ---------------------------------------------------------------------------------------
// Constants

TEST(Exact, SqrtIsExactForManyK) {
  for (long long k = 0; k <= 60; ++k) {
    const Exact r = Exact::sqrt(k);
    EXPECT_EQ(r * r, Exact(k)) << "k=" << k;
    EXPECT_EQ(r.sign(), k == 0 ? 0 : 1) << "k=" << k;
    EXPECT_NEAR(r.toDouble(), std::sqrt(static_cast<double>(k)), 1e-12) << "k=" << k;
    EXPECT_EQ(r.conductor(), conductorForSqrt(k)) << "k=" << k;
  }
  for (long long p : {97LL, 101LL, 103LL, 251LL, 1019LL, 1021LL}) {
    const Exact r = Exact::sqrt(p);
    EXPECT_EQ(r * r, Exact(p)) << p;
    EXPECT_GT(r.sign(), 0) << p;
  }
  EXPECT_EQ(Exact::sqrt(4 * 1021 * 1021), Exact(2 * 1021));
  EXPECT_TRUE(Exact::sqrt(49).isInteger());
  EXPECT_EQ(Exact::sqrt(12), Exact(2) * Exact::sqrt(3));
}

TEST(Exact, SqrtComparesExactlyWithDecimals) {
  const Exact h = Exact::sqrt(3) / Exact(2);  // 0.86602540378...
  EXPECT_GT((h - P("0.866025403")).sign(), 0);
  EXPECT_LT((h - P("0.8660254038")).sign(), 0);
  EXPECT_GT(h, P("0.866025403"));
  EXPECT_LT(h, P("0.8660254038"));
  EXPECT_GT(Exact::sqrt(2), P("1.41421356237309504880168872420969807"));
  EXPECT_LT(Exact::sqrt(2), P("1.41421356237309504880168872420969808"));
}

TEST(Exact, ConductorsAreMinimal) {
  EXPECT_EQ(conductorForSqrt(0), 4);
  EXPECT_EQ(conductorForSqrt(1), 4);
  EXPECT_EQ(conductorForSqrt(2), 8);
  EXPECT_EQ(conductorForSqrt(3), 12);
  EXPECT_EQ(conductorForSqrt(5), 20);
  EXPECT_EQ(conductorForSqrt(8), 8);
  EXPECT_EQ(conductorForSqrt(18), 8);
  EXPECT_EQ(conductorForSqrt(6), 24);
  EXPECT_EQ(conductorForSqrt(1031), 4124);  // reported even beyond the limit
  EXPECT_EQ(conductorForCosPi(1, 3), 4);    // cos(π/3) = 1/2
  EXPECT_EQ(conductorForCosPi(2, 3), 4);
  EXPECT_EQ(conductorForCosPi(1, 2), 4);
  EXPECT_EQ(conductorForCosPi(0, 7), 4);
  EXPECT_EQ(conductorForCosPi(1, 6), 12);
  EXPECT_EQ(conductorForCosPi(2, 12), 12);  // reduced first
  EXPECT_EQ(conductorForCosPi(1, 4), 8);
  EXPECT_EQ(conductorForCosPi(1, 5), 20);
  EXPECT_EQ(conductorForCosPi(2, 5), 20);
  EXPECT_EQ(conductorForCosPi(1, 7), 28);
  EXPECT_EQ(conductorForCosPi(2, 7), 28);
  EXPECT_EQ(conductorForCosPi(-1, 7), 28);
  EXPECT_EQ(conductorForSinPi(1, 6), 4);   // sin(π/6) = 1/2
  EXPECT_EQ(conductorForSinPi(1, 3), 12);  // √3/2
  EXPECT_EQ(conductorForSinPi(1, 4), 8);
  EXPECT_EQ(conductorForSinPi(1, 2), 4);
  EXPECT_EQ(conductorForSinPi(2, 5), 20);
  EXPECT_EQ(conductorForSinPi(1, 5), 20);
  EXPECT_EQ(conductorForSinPi(1, 7), 28);
  for (long long q = 1; q <= 40; ++q) {
    for (long long p = -2 * q; p <= 2 * q; ++p) {
      const Exact c = Exact::cosPi(p, q), s = Exact::sinPi(p, q);
      ASSERT_EQ(c.conductor(), conductorForCosPi(p, q)) << p << "/" << q;
      ASSERT_EQ(s.conductor(), conductorForSinPi(p, q)) << p << "/" << q;
      ASSERT_NEAR(c.toDouble(), std::cos(kPi * p / q), 1e-12) << p << "/" << q;
      ASSERT_NEAR(s.toDouble(), std::sin(kPi * p / q), 1e-12) << p << "/" << q;
      ASSERT_EQ(c * c + s * s, Exact(1)) << p << "/" << q;
    }
  }
}

TEST(Exact, TrigConstantsAreExact) {
  EXPECT_EQ(Exact::cosPi(1, 3), Exact::rational(1, 2));
  EXPECT_TRUE(Exact::cosPi(1, 3).isRational());
  EXPECT_EQ(Exact::cosPi(1, 6), Exact::sqrt(3) / Exact(2));
  EXPECT_EQ(Exact::sinPi(1, 3), Exact::sqrt(3) / Exact(2));
  EXPECT_EQ(Exact::sinPi(1, 4), Exact::sqrt(2) / Exact(2));
  EXPECT_EQ(Exact::cosPi(1, 5), (Exact(1) + Exact::sqrt(5)) / Exact(4));
  EXPECT_EQ(Exact::sinPi(-1, 2), Exact(-1));
  EXPECT_EQ(Exact::cosPi(7, 1), Exact(-1));
  EXPECT_EQ(Exact::cosPi(std::numeric_limits<long long>::max(), 1), Exact(-1));
  EXPECT_EQ(Exact::sinPi(std::numeric_limits<long long>::min(), 2), Exact(0));
  // cos(π/7)·cos(2π/7)·cos(4π/7) = −1/8
  EXPECT_EQ(Exact::cosPi(1, 7) * Exact::cosPi(2, 7) * Exact::cosPi(4, 7), Exact::rational(-1, 8));
  EXPECT_CONTAINS(errorOf([] { Exact::cosPi(1, 0); }), "q > 0");
  EXPECT_CONTAINS(errorOf([] { Exact::sinPi(1, -3); }), "q > 0");
  EXPECT_EQ(errorOf([] { Exact::cosPi(1, 4097); }),
            "cos(1*pi/4097): number field Q(cos 2π/N) with N=16388 exceeds the limit 4096");
  EXPECT_CONTAINS(errorOf([] { Exact::sinPi(1, std::numeric_limits<long long>::max()); }),
                  "exceeds the limit 4096");
  EXPECT_EQ(errorOf([] { Exact::sqrt(1031); }),
            "sqrt(1031): number field Q(cos 2π/N) with N=4124 exceeds the limit 4096");
  EXPECT_CONTAINS(errorOf([] { Exact::sqrt(-4); }), "negative");
  EXPECT_CONTAINS(errorOf([] { Exact::sqrt(std::numeric_limits<long long>::max()); }),
                  "exceeds the limit 4096");
}

TEST(Exact, RotationByTwoPiOverFiveHasOrderFive) {
  const Exact c = Exact::cosPi(2, 5), s = Exact::sinPi(2, 5);
  using M2 = std::array<std::array<Exact, 2>, 2>;
  const M2 r = {{{c, -s}, {s, c}}};
  auto mul = [](const M2& a, const M2& b) {
    M2 out;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
    return out;
  };
  M2 p = r;
  for (int k = 2; k <= 5; ++k) {
    p = mul(p, r);
    const bool identity =
        p[0][0] == Exact(1) && p[1][1] == Exact(1) && p[0][1].isZero() && p[1][0].isZero();
    EXPECT_EQ(identity, k == 5) << "R^" << k;
  }
  EXPECT_TRUE(p[0][0].isOne());
}

TEST(Exact, RotationByTwoPiOverNineHasOrderNine) {
  // The f_modulo_counter construction: R(2π/n)^n = I and Rⁱe₁ = (cos 2πi/n, sin 2πi/n).
  const long long n = 9;
  const Exact c = Exact::cosPi(2, n), s = Exact::sinPi(2, n);
  Exact x(1), y(0);
  for (long long i = 1; i <= n; ++i) {
    const Exact nx = c * x - s * y, ny = s * x + c * y;
    x = nx;
    y = ny;
    EXPECT_EQ(x, Exact::cosPi(2 * i, n)) << i;
    EXPECT_EQ(y, Exact::sinPi(2 * i, n)) << i;
  }
  EXPECT_EQ(x, Exact(1));
  EXPECT_EQ(y, Exact(0));
}

// ---------------------------------------------------------------------------------------
// Arithmetic

TEST(Exact, RationalArithmetic) {
  EXPECT_EQ(Exact::rational(1, 3) + Exact::rational(1, 6), Exact::rational(1, 2));
  EXPECT_EQ(Exact::rational(6, -4), Exact::rational(-3, 2));
  EXPECT_EQ(Exact(7) / Exact(2), Exact::rational(7, 2));
  EXPECT_EQ(-Exact(3), Exact(-3));
  EXPECT_EQ(Exact(mpz_class("123456789012345678901234567890")) * Exact(10),
            Exact(mpz_class("1234567890123456789012345678900")));
  EXPECT_EQ(Exact(mpq_class(2, 4)), Exact::rational(1, 2));  // canonicalized
  EXPECT_TRUE(Exact().isZero());
  EXPECT_TRUE(Exact(1L).isOne());
  EXPECT_TRUE(Exact(5LL).isInteger());
  EXPECT_FALSE(Exact::rational(1, 2).isInteger());
  EXPECT_EQ(Exact::rational(3, 4).toRational(), mpq_class(3, 4));
  EXPECT_CONTAINS(errorOf([] { Exact::sqrt(2).toRational(); }), "rational");
  EXPECT_EQ(errorOf([] { Exact::rational(1, 0); }), "rational 1/0: division by zero");
  EXPECT_EQ(errorOf([] { Exact(1) / Exact(0); }), "division by zero");
  EXPECT_EQ(errorOf([] { Exact::sqrt(2) / (Exact::sqrt(2) - Exact::sqrt(2)); }),
            "division by zero");
  EXPECT_EQ(errorOf([] { Exact::sqrt(2) / Exact(); }), "division by zero");
}

TEST(Exact, DoublesConvertExactly) {
  EXPECT_EQ(Exact(0.5), Exact::rational(1, 2));
  EXPECT_EQ(Exact(-0.0), Exact(0));
  EXPECT_EQ(Exact(0.1).toRational(),
            mpq_class(mpz_class(3602879701896397L), mpz_class(36028797018963968L)));
  EXPECT_NE(Exact(0.1), P("0.1"));
  EXPECT_EQ(Exact(1e300).toDouble(), 1e300);
  EXPECT_EQ(Exact(5e-324).toDouble(), 5e-324);
  EXPECT_EQ(errorOf([] { (void)Exact(std::numeric_limits<double>::infinity()); }),
            "non-finite value inf");
  EXPECT_EQ(errorOf([] { (void)Exact(-std::numeric_limits<double>::infinity()); }),
            "non-finite value -inf");
  EXPECT_EQ(errorOf([] { (void)Exact(std::numeric_limits<double>::quiet_NaN()); }),
            "non-finite value nan");
}

TEST(Exact, MixedFieldArithmeticLifts) {
  const Exact s2 = Exact::sqrt(2), s3 = Exact::sqrt(3);
  ASSERT_EQ(s2.conductor(), 8);
  ASSERT_EQ(s3.conductor(), 12);
  const Exact sum = s2 + s3;
  EXPECT_EQ(sum.conductor(), 24);
  EXPECT_EQ(sum * sum, Exact(5) + Exact(2) * Exact::sqrt(6));
  EXPECT_EQ((s2 * s3) * (s2 * s3), Exact(6));
  EXPECT_EQ(s2 * s3, Exact::sqrt(6));
  EXPECT_NEAR(sum.toDouble(), std::sqrt(2.0) + std::sqrt(3.0), 1e-14);
  // Rational operands keep the other's field.
  EXPECT_EQ((s2 + Exact(1)).conductor(), 8);
  EXPECT_EQ((Exact(1) + s2).conductor(), 8);
  EXPECT_EQ((Exact::cosPi(1, 3) * s2).conductor(), 8);
  // A rational value in a non-trivial field.
  const Exact half = Exact(CosField::get(12), CosField::get(12).fromRational(mpq_class(1, 2)));
  EXPECT_EQ((half + Exact::sqrt(5)).conductor(), 20);
  EXPECT_EQ((Exact::sqrt(5) * half), Exact::sqrt(5) / Exact(2));
  EXPECT_EQ(half, Exact::rational(1, 2));
  EXPECT_LT(half, Exact::sqrt(5));
  EXPECT_GT(Exact::sqrt(5), half);
  // Division and subtraction across fields.
  EXPECT_EQ(Exact(1) / (s3 - s2), s3 + s2);
  EXPECT_EQ((s3 - s2) * (s3 + s2), Exact(1));
  Exact acc;
  for (int k = 1; k <= 7; ++k) acc += Exact::cosPi(1, k);
  EXPECT_NEAR(
      acc.toDouble(),
      [] {
        double t = 0;
        for (int k = 1; k <= 7; ++k) t += std::cos(kPi / k);
        return t;
      }(),
      1e-12);
  EXPECT_EQ(acc.conductor(), 840);  // lcm(8, 20, 12, 28) = 840
}

TEST(Exact, ComparisonsAndSigns) {
  const Exact s2 = Exact::sqrt(2), s3 = Exact::sqrt(3);
  EXPECT_LT(s2, s3);
  EXPECT_GT(s3, s2);
  EXPECT_LE(s2, s2);
  EXPECT_EQ(s2 <=> s2.liftedTo(CosField::get(24)), std::strong_ordering::equal);
  EXPECT_EQ(s2 <=> s3, std::strong_ordering::less);
  EXPECT_EQ(Exact(2) <=> s3, std::strong_ordering::greater);
  EXPECT_EQ(s3 <=> Exact(2), std::strong_ordering::less);
  EXPECT_EQ(Exact(1) <=> Exact(2), std::strong_ordering::less);
  EXPECT_NE(s2, Exact(1));
  EXPECT_NE(Exact(1), s2);
  EXPECT_EQ((s2 - s3).sign(), -1);
  EXPECT_EQ((s3 - s2).sign(), 1);
  EXPECT_EQ((s2 * s2 - Exact(2)).sign(), 0);
  // A tiny but non-zero difference is decided exactly: cos(π/4096)-based value near 1.
  const Exact c = Exact::cosPi(1, 2048);
  EXPECT_LT(c, Exact(1));
  EXPECT_GT(c, P("0.99999882"));
  EXPECT_EQ((c - Exact(1)).sign(), -1);
}

TEST(Exact, ToDoubleIsAccurate) {
  EXPECT_DOUBLE_EQ(Exact::sqrt(2).toDouble(), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(Exact::cosPi(1, 5).toDouble(), std::cos(kPi / 5));
  EXPECT_DOUBLE_EQ(Exact::rational(1, 3).toDouble(), 1.0 / 3.0);
  // √7·10⁶ − 2645751 = 0.31106459059050162...; doubles would lose 7 digits here.
  EXPECT_DOUBLE_EQ((Exact::sqrt(7) * Exact(1000000) - Exact(2645751)).toDouble(),
                   0.31106459059050162);
  EXPECT_EQ(P("1e10").toDouble(), 1e10);
  EXPECT_EQ(P("0.1").toDouble(), 0.1);
}

TEST(Exact, CopiesAreIndependent) {
  Exact a = Exact::sqrt(2);
  Exact b = a;
  b += Exact(1);
  EXPECT_EQ(a, Exact::sqrt(2));
  EXPECT_EQ(b - a, Exact(1));
  static_assert(sizeof(Exact) == sizeof(void*) + sizeof(eantic::renf_elem_class));
}

TEST(Exact, ThreadSafeFieldCreationAndConstants) {
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &ok] {
      const ExactThreadScope releaseCaches;
      bool good = true;
      for (int q = 5; q < 40; ++q) {
        const Exact c = Exact::cosPi(t + 1, q), s = Exact::sinPi(t + 1, q);
        good = good && (c * c + s * s == Exact(1));
        good = good && &CosField::get(4 * q) == &CosField::get(4 * q);
      }
      const Exact r = Exact::sqrt(30 + t);
      good = good && r * r == Exact(30 + t);
      ok[t] = good ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(ok[t], 1) << t;
}

TEST(Exact, SharedValuesComparedFromManyThreads) {
  // Comparisons that need e-antic to refine enclosures (values that agree to ~30 digits)
  // on values shared between threads, in one field.
  const Exact c = Exact::cosPi(1, 1024);  // 0.99999529380957617151158012570...
  const std::vector<Exact> below = {P("0.9999952938095761715115801257"),
                                    P("0.99999529380957617151158012570011")};
  const std::vector<Exact> above = {P("0.9999952938095761715115801258"),
                                    P("0.99999529380957617151158012570012")};
  const Exact s = Exact::sinPi(1, 1024);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const ExactThreadScope releaseCaches;
      bool good = true;
      for (int i = 0; i < 5; ++i) {
        for (const Exact& b : below) good = good && c > b && (c - b).sign() > 0;
        for (const Exact& a : above) good = good && c < a && (a - c).sign() > 0;
        good = good && (c * c + s * s - Exact(1)).sign() == 0;
        good = good && std::abs(c.toDouble() - std::cos(kPi / 1024)) < 1e-15;
      }
      ok[t] = good ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(ok[t], 1) << t;
}

// ---------------------------------------------------------------------------------------
// Parsing

TEST(ExactParse, IntegersAndRationals) {
  EXPECT_EQ(P("0"), Exact(0));
  EXPECT_EQ(P("42"), Exact(42));
  EXPECT_EQ(P("007"), Exact(7));
  EXPECT_EQ(P("-3"), Exact(-3));
  EXPECT_EQ(P("+3"), Exact(3));
  EXPECT_EQ(P("--3"), Exact(3));
  EXPECT_EQ(P("1/3"), Exact::rational(1, 3));
  EXPECT_EQ(P("-1/3"), Exact::rational(-1, 3));
  EXPECT_EQ(P("6/4"), Exact::rational(3, 2));
  EXPECT_EQ(P("123456789012345678901234567890"),
            Exact(mpz_class("123456789012345678901234567890")));
  EXPECT_EQ(P("  \t 5 \n"), Exact(5));
}

TEST(ExactParse, DecimalsAreExact) {
  EXPECT_EQ(P("0.1") * Exact(10), Exact(1));
  EXPECT_EQ(P("0.1"), Exact::rational(1, 10));
  EXPECT_EQ(P("1e-3"), Exact::rational(1, 1000));
  EXPECT_EQ(P("1E-3"), Exact::rational(1, 1000));
  EXPECT_EQ(P("-1e10"), Exact(-10000000000LL));
  EXPECT_EQ(P("2.5E+3"), Exact(2500));
  EXPECT_EQ(P("2.5e3"), Exact(2500));
  EXPECT_EQ(P(".5"), Exact::rational(1, 2));
  EXPECT_EQ(P("5."), Exact(5));
  EXPECT_EQ(P("3.14159"), Exact::rational(314159, 100000));
  EXPECT_EQ(P("0.000"), Exact(0));
  EXPECT_EQ(P("1.5e-2"), Exact::rational(3, 200));
  EXPECT_EQ(P("1e-10"), Exact::rational(1, 10000000000LL));
  EXPECT_EQ(P("1e100"), Exact(mpz_class("1" + std::string(100, '0'))));
  EXPECT_EQ(P("0.1 + 0.2"), P("0.3"));
}

TEST(ExactParse, OperatorsPrecedenceAndParentheses) {
  EXPECT_EQ(P("1 + 2 * 3"), Exact(7));
  EXPECT_EQ(P("(1 + 2) * 3"), Exact(9));
  EXPECT_EQ(P("1 - 2 - 3"), Exact(-4));
  EXPECT_EQ(P("12 / 2 / 3"), Exact(2));
  EXPECT_EQ(P("2 * -3"), Exact(-6));
  EXPECT_EQ(P("-(1/2)"), Exact::rational(-1, 2));
  EXPECT_EQ(P("-2*-2"), Exact(4));
  EXPECT_EQ(P("1-+1"), Exact(0));
  EXPECT_EQ(P("((((7))))"), Exact(7));
  EXPECT_EQ(P("1/2*3"), Exact::rational(3, 2));
}

TEST(ExactParse, SqrtForms) {
  EXPECT_EQ(P("sqrt(2)"), Exact::sqrt(2));
  EXPECT_EQ(P("sqrt( 2 )"), Exact::sqrt(2));
  EXPECT_EQ(P("sqrt (8)"), Exact(2) * Exact::sqrt(2));
  EXPECT_EQ(P("sqrt(0)"), Exact(0));
  EXPECT_EQ(P("sqrt(16)"), Exact(4));
  EXPECT_EQ(P("sqrt(2*3)"), Exact::sqrt(6));
  EXPECT_EQ(P("sqrt(1/4)"), Exact::rational(1, 2));
  EXPECT_EQ(P("sqrt(3/4)"), Exact::sqrt(3) / Exact(2));
  EXPECT_EQ(P("sqrt(0.5)"), Exact::sqrt(2) / Exact(2));
  EXPECT_EQ(P("sqrt(3)/2"), Exact::cosPi(1, 6));
  EXPECT_EQ(P("1/3 + sqrt(2)"), Exact::rational(1, 3) + Exact::sqrt(2));
  EXPECT_EQ(P("sqrt(2)*sqrt(2)"), Exact(2));
}

TEST(ExactParse, TrigForms) {
  EXPECT_EQ(P("cos(pi)"), Exact(-1));
  EXPECT_EQ(P("cos(0)"), Exact(1));
  EXPECT_EQ(P("sin(0)"), Exact(0));
  EXPECT_EQ(P("cos(pi/3)"), Exact::rational(1, 2));
  EXPECT_EQ(P("cos(2*pi/3)"), Exact::rational(-1, 2));
  EXPECT_EQ(P("cos(-pi/6)"), Exact::sqrt(3) / Exact(2));
  EXPECT_EQ(P("sin(-pi/6)"), Exact::rational(-1, 2));
  EXPECT_EQ(P("cos(2pi/5)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("cos(2 * pi / 5)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("cos(pi*2/5)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("cos(2/5*pi)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("cos(0.4*pi)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("cos(0.4pi)"), Exact::cosPi(2, 5));
  EXPECT_EQ(P("sin((1/2 + 1/3)*pi)"), Exact::sinPi(5, 6));
  EXPECT_EQ(P("sin(pi/4)"), Exact::sqrt(2) / Exact(2));
  EXPECT_EQ(P("sin(2*pi/5)"), Exact::sinPi(2, 5));
  EXPECT_EQ(P("cos(\xCF\x80/4)"), Exact::sqrt(2) / Exact(2));
  EXPECT_EQ(P("cos(pi - pi/3)"), Exact::rational(-1, 2));
  EXPECT_EQ(P("cos(1000001*pi/3)"), Exact::rational(1, 2));  // 1000001 ≡ 5 (mod 6)
  EXPECT_EQ(P("cos(1000004*pi/4)"), Exact(-1));
  EXPECT_EQ(P("cos(pi/7)*cos(2*pi/7)"), Exact::cosPi(1, 7) * Exact::cosPi(2, 7));
}

TEST(ExactParse, Errors) {
  expectParseError("1/+", 3, "expected a number");
  EXPECT_EQ(errorOf([] { P("1/+"); }),
            "ParseError: cannot parse \"1/+\" at position 3: expected a number");
  expectParseError("", 0, "expected a number");
  expectParseError("   ", 3, "expected a number");
  expectParseError("inf", 0, "expected a number, got 'inf'");
  expectParseError("-inf", 1, "finite");
  expectParseError("nan", 0, "expected a number, got 'nan'");
  expectParseError("NaN", 0, "finite");
  expectParseError("Infinity", 0, "finite");
  expectParseError("1 2", 2, "expected an operator or the end of the text, got '2'");
  expectParseError("1)", 1, "got ')'");
  expectParseError("3x", 1, "got 'x'");
  expectParseError("1.2.3", 3, "got '.'");
  expectParseError("(1", 2, "expected ')'");
  expectParseError("(1 2", 3, "expected ')', got '2'");
  expectParseError("1 +", 3, "expected a number");
  expectParseError("*1", 0, "expected a number, got '*'");
  expectParseError("foo", 0, "expected a number, got 'foo'");
  expectParseError("PI", 0, "lower case");
  expectParseError("1e", 2, "expected digits in the exponent");
  expectParseError("1e+", 3, "expected digits in the exponent");
  expectParseError("1e99999", 1, "exponent out of range");
  expectParseError("1/0", 2, "division by zero");
  expectParseError("1/(2-2)", 2, "division by zero");
  expectParseError("sqrt(2)/(sqrt(2)-sqrt(2))", 8, "division by zero");
  expectParseError("sqrt 2", 5, "expected '(' after sqrt");
  expectParseError("sqrt(-1)", 5, "non-negative rational");
  expectParseError("sqrt(sqrt(2))", 5, "non-negative rational");
  expectParseError("sqrt(1031)", 5, "exceeds the limit 4096");
  expectParseError("sqrt(pi)", 5, "pi is only allowed inside cos() and sin()");
  expectParseError("2*pi", 2, "pi is only allowed inside cos() and sin()");
  expectParseError("cos(1)", 4, "expected a rational multiple of pi");
  expectParseError("cos(pi + 1)", 4, "expected a rational multiple of pi");
  expectParseError("cos(pi*pi)", 6, "cannot multiply pi by pi");
  expectParseError("cos(sqrt(2)*pi)", 11, "a multiple of pi must be rational");
  expectParseError("cos(1/pi)", 6, "cannot divide by a multiple of pi");
  expectParseError("cos(pi/0)", 7, "division by zero");
  expectParseError("cos(pi/5000)", 4, "exceeds the limit 4096");
  expectParseError("cos(pi/100) + cos(pi/99)", 12, "exceeds the limit 4096");
  expectParseError("cos pi", 4, "expected '(' after cos");
  expectParseError("sin(pi", 6, "expected ')'");
  expectParseError(std::string(300, '(') + "1" + std::string(300, ')'), 200, "nested too deeply");
  expectParseError(std::string(300, '(') + "1" + std::string(300, ')'), 200,
                   "\"..." + std::string(74, '(') + "...\" (601 characters) at position 200");
  expectParseError(std::string(300, '-') + "1", 200, "nested too deeply");
  expectParseError("1 \xCF\x80", 2, "got '\xCF\x80'");
}

// ---------------------------------------------------------------------------------------
// Printing

TEST(ExactToString, Rationals) {
  EXPECT_EQ(Exact(7).toString(), "7");
  EXPECT_EQ(Exact(-3).toString(), "-3");
  EXPECT_EQ(Exact(0).toString(), "0");
  EXPECT_EQ(Exact::rational(1, 3).toString(), "1/3");
  EXPECT_EQ(Exact::rational(-2, 6).toString(), "-1/3");
  EXPECT_EQ(P("-1e-10").toString(), "-1/10000000000");
  EXPECT_EQ(P("1e30").toString(), "1000000000000000000000000000000");
  EXPECT_EQ(Exact::cosPi(1, 3).toString(), "1/2");
  // A rational value inside a larger field prints as a rational.
  EXPECT_EQ((Exact::sqrt(2) * Exact::sqrt(2)).toString(), "2");
  std::ostringstream os;
  os << Exact::rational(5, 7) << " " << Exact::sqrt(2);
  EXPECT_EQ(os.str(), "5/7 2*cos(pi/4)");
}

TEST(ExactToString, IrrationalsUseCosTerms) {
  EXPECT_EQ(P("sqrt(3)/2").toString(), "cos(pi/6)");
  EXPECT_EQ(P("-sqrt(3)/2").toString(), "-cos(pi/6)");
  EXPECT_EQ(P("sqrt(2)").toString(), "2*cos(pi/4)");
  EXPECT_EQ(P("1/3 + sqrt(2)").toString(), "1/3 + 2*cos(pi/4)");
  EXPECT_EQ(P("1/3 - sqrt(2)/4").toString(), "1/3 - 1/2*cos(pi/4)");
  // Q(cos 2π/20) has the basis 1, cos(π/10), cos(π/5), cos(3π/10).
  EXPECT_EQ(P("cos(pi/5)").toString(), "cos(pi/5)");
  EXPECT_EQ(P("cos(2*pi/5)").toString(), "-1/2 + cos(pi/5)");
  EXPECT_EQ(P("sqrt(2) + sqrt(3)").toString(), "2*cos(pi/6) + 2*cos(pi/4)");
}

TEST(ExactToString, RoundTrips) {
  const std::vector<std::string> texts = {
      "sqrt(3)/2",
      "sin(2*pi/5)",
      "1/3 + sqrt(2)",
      "cos(pi/7)*cos(2*pi/7)",
      "cos(pi/7) - 5/3*sin(3*pi/7) + 1e-20",
      "sqrt(2) + sqrt(3)",
      "sqrt(5)*sqrt(7)/11",
      "-sqrt(1021)",
      "sqrt(2)*cos(pi/9)/sin(pi/5) - 7",
      "cos(pi/1024)",
      "cos(pi/2048)",
      "1/(1 + sqrt(2) + sqrt(3))",
      "sin(pi/12)",
      "cos(11*pi/60)",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    const Exact x = P(text.c_str());
    const std::string s = x.toString();
    const Exact y = Exact::parse(s);
    EXPECT_EQ(y, x) << s;
    EXPECT_EQ(y.toString(), s);
  }
  // Many generated values.
  for (long long q = 1; q <= 30; ++q) {
    for (long long p = 0; p < 2 * q; ++p) {
      const Exact x = Exact::cosPi(p, q) * Exact::rational(p + 1, q + 2) - Exact::sinPi(p, q);
      ASSERT_EQ(Exact::parse(x.toString()), x) << x.toString();
    }
  }
}

}  // namespace
}  // namespace lsrl
