// Exact::parse: the scalar grammar of the whole project.
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('+' | '-') unary | primary
//   primary := number [pi] | 'pi' | 'π' | '(' expr ')'
//            | 'sqrt' '(' expr ')' | 'cos' '(' expr ')' | 'sin' '(' expr ')'
//   number  := digits ['.' [digits]] [exponent] | '.' digits [exponent]
//   exponent:= ('e' | 'E') ['+' | '-'] digits          (|exponent| <= 10000)
//
// Decimals are read exactly (0.1 = 1/10, 1e-3 = 1/1000, .5 = 1/2, 5. = 5). Whitespace
// (space, tab, CR, LF) may appear between any two tokens. Names are lower case.
//
// `pi` may appear anywhere inside an expression, but every value is tracked as x + k·π
// with k rational, and the argument of cos()/sin() must reduce to exactly k·π (or 0):
// cos(pi/3), cos(2*pi/3), cos(-pi/6), cos(2pi/5) (a number directly followed by `pi`
// multiplies it), sin((1/2 + 1/3)*pi), cos(0). The value of the whole text and the
// argument of sqrt() must be free of pi. sqrt() takes a non-negative rational
// (sqrt(p/q) = sqrt(p·q)/q). Errors are lsrl::ParseError with a 0-based byte position,
// quoting at most 80 characters of the text (quoteInput):
//   cannot parse "1/+" at position 3: expected a number
#include <string>
#include <utility>

#include "core/numbers/exact.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {
namespace {

constexpr int kMaxDepth = 200;
constexpr long kMaxExponent = 10000;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Exact run() {
    Val v = expr();
    skipWs();
    if (pos_ < text_.size()) {
      fail(pos_, "expected an operator or the end of the text, got " + shownToken(tokenAt(pos_)));
    }
    if (v.pi != 0) fail(v.piPos, "pi is only allowed inside cos() and sin()");
    return std::move(v.x);
  }

 private:
  // x + pi·π; piPos is where the first pi of this value was written.
  struct Val {
    Exact x;
    mpq_class pi;
    size_t piPos = std::string_view::npos;
  };

  struct DepthGuard {
    DepthGuard(Parser& p, size_t at) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail(at, "expression nested too deeply");
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw ParseError("cannot parse " + quoteInput(text_, at) + " at position " +
                         std::to_string(at) + ": " + what,
                     std::string(text_), at);
  }

  // Runs f, turning lsrl::Error (field limits, division by zero) into a ParseError at `at`.
  template <class F>
  auto guarded(size_t at, F&& f) {
    try {
      return f();
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      fail(at, e.what());
    }
  }

  // 'token' in a message; a long one (a 10^5-letter name) bounded by quoteInput, shorter
  // than the quote of the whole text that the message starts with.
  static std::string shownToken(const std::string& token) {
    constexpr size_t kMaxToken = 24;
    return token.size() <= kMaxToken ? "'" + token + "'"
                                     : quoteInput(token, std::string::npos, kMaxToken);
  }

  // The token starting at `at`, for messages: a name, a number, or one (UTF-8) character.
  std::string tokenAt(size_t at) const {
    if (at >= text_.size()) return "";
    size_t end = at + 1;
    if (isIdentChar(text_[at])) {
      while (end < text_.size() && isIdentChar(text_[end])) ++end;
    } else if (static_cast<unsigned char>(text_[at]) >= 0xC0) {
      while (end < text_.size() && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;
    }
    return std::string(text_.substr(at, end - at));
  }

  void skipWs() {
    while (pos_ < text_.size() && isSpace(text_[pos_])) ++pos_;
  }

  bool peek(char c) {
    skipWs();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  void expect(char c) {
    skipWs();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return;
    }
    std::string what = std::string("expected '") + c + "'";
    if (pos_ < text_.size()) what += ", got " + shownToken(tokenAt(pos_));
    fail(pos_, what);
  }

  // `pi` or `π` at pos_ (not followed by more name characters): consumes it.
  bool takePi() {
    if (text_.substr(pos_, 2) == "\xCF\x80") {
      pos_ += 2;
      return true;
    }
    if (text_.substr(pos_, 2) == "pi" &&
        (pos_ + 2 >= text_.size() || !isIdentChar(text_[pos_ + 2]))) {
      pos_ += 2;
      return true;
    }
    return false;
  }

  Val expr() {
    Val v = term();
    while (true) {
      skipWs();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return v;
      const bool minus = text_[pos_] == '-';
      const size_t opPos = pos_++;
      Val r = term();
      guarded(opPos, [&] {
        if (minus) {
          v.x -= r.x;
          v.pi -= r.pi;
        } else {
          v.x += r.x;
          v.pi += r.pi;
        }
        return 0;
      });
      if (v.piPos == std::string_view::npos) v.piPos = r.piPos;
    }
  }

  Val term() {
    Val v = unary();
    while (true) {
      skipWs();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) return v;
      const bool divide = text_[pos_] == '/';
      const size_t opPos = pos_++;
      skipWs();
      const size_t rhsPos = pos_;
      Val r = unary();
      if (divide) {
        divideBy(v, r, rhsPos);
      } else {
        multiplyBy(v, r, opPos);
      }
    }
  }

  void multiplyBy(Val& v, const Val& r, size_t opPos) {
    if (v.pi != 0 && r.pi != 0) fail(opPos, "cannot multiply pi by pi");
    if (v.pi != 0) {
      if (!r.x.isRational()) fail(opPos, "a multiple of pi must be rational");
      v.pi *= r.x.toRational();
    } else if (r.pi != 0) {
      if (!v.x.isRational()) fail(opPos, "a multiple of pi must be rational");
      v.pi = r.pi * v.x.toRational();
      v.piPos = r.piPos;
    }
    guarded(opPos, [&] { return v.x *= r.x, 0; });
  }

  void divideBy(Val& v, const Val& r, size_t rhsPos) {
    if (r.pi != 0) fail(rhsPos, "cannot divide by a multiple of pi");
    if (r.x.isZero()) fail(rhsPos, "division by zero");
    if (v.pi != 0) {
      if (!r.x.isRational()) fail(rhsPos, "a multiple of pi must be rational");
      v.pi /= r.x.toRational();
    }
    guarded(rhsPos, [&] { return v.x /= r.x, 0; });
  }

  Val unary() {
    skipWs();
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      const bool minus = text_[pos_] == '-';
      DepthGuard depth(*this, pos_);
      ++pos_;
      Val v = unary();
      if (minus) {
        v.x = -v.x;
        v.pi = -v.pi;
      }
      return v;
    }
    return primary();
  }

  Val primary() {
    skipWs();
    if (pos_ >= text_.size()) fail(pos_, "expected a number");
    const char c = text_[pos_];
    if (isDigit(c) || (c == '.' && pos_ + 1 < text_.size() && isDigit(text_[pos_ + 1]))) {
      return number();
    }
    if (c == '(') {
      DepthGuard depth(*this, pos_);
      ++pos_;
      Val v = expr();
      expect(')');
      return v;
    }
    const size_t start = pos_;
    if (takePi()) return Val{Exact(), mpq_class(1), start};
    if (isIdentStart(c)) {
      const std::string name = tokenAt(pos_);
      if (name == "sqrt" || name == "cos" || name == "sin") {
        pos_ += name.size();
        return call(name);
      }
      const std::string l = lower(name);
      if (l == "inf" || l == "infinity" || l == "nan") {
        fail(start, "expected a number, got '" + name + "' (values must be finite and exact)");
      }
      if (l == "pi" || l == "sqrt" || l == "cos" || l == "sin") {
        fail(start, "expected a number, got '" + name + "' (names are lower case: " + l + ")");
      }
      fail(start, "expected a number, got " + shownToken(name));
    }
    fail(start, "expected a number, got " + shownToken(tokenAt(start)));
  }

  Val call(const std::string& name) {
    skipWs();
    if (pos_ >= text_.size() || text_[pos_] != '(') {
      fail(pos_, "expected '(' after " + name);
    }
    DepthGuard depth(*this, pos_);
    ++pos_;
    skipWs();
    const size_t argPos = pos_;
    Val arg = expr();
    expect(')');
    if (name == "sqrt") return Val{sqrtOf(arg, argPos), mpq_class(0)};
    return Val{trigOf(name, arg, argPos), mpq_class(0)};
  }

  Exact sqrtOf(const Val& arg, size_t argPos) {
    if (arg.pi != 0) fail(arg.piPos, "pi is only allowed inside cos() and sin()");
    if (!arg.x.isRational() || arg.x.sign() < 0) {
      fail(argPos, "sqrt() needs a non-negative rational argument, got " + arg.x.toString());
    }
    const mpq_class r = arg.x.toRational();
    const mpz_class k = r.get_num() * r.get_den();
    if (!k.fits_slong_p()) fail(argPos, "sqrt() argument " + r.get_str() + " is too large");
    Exact root = guarded(argPos, [&] { return Exact::sqrt(k.get_si()); });
    if (r.get_den() != 1) root /= Exact(r.get_den());
    return root;
  }

  Exact trigOf(const std::string& name, const Val& arg, size_t argPos) {
    if (!arg.x.isZero()) {
      fail(argPos, "expected a rational multiple of pi as the argument of " + name + "(), e.g. " +
                       name + "(pi/3)");
    }
    const mpz_class q = arg.pi.get_den();
    if (q > mpz_class(1L << 60)) {
      fail(argPos, name + "() of an angle with denominator " + q.get_str() +
                       " needs a number field beyond the limit " +
                       std::to_string(CosField::kMaxConductor));
    }
    // cos and sin have period 2π: reduce the numerator mod 2q so it fits a long.
    mpz_class p = arg.pi.get_num() % (2 * q);
    const long pl = p.get_si(), ql = q.get_si();
    return guarded(argPos,
                   [&] { return name == "cos" ? Exact::cosPi(pl, ql) : Exact::sinPi(pl, ql); });
  }

  Val number() {
    std::string digits;
    long fracDigits = 0;
    while (pos_ < text_.size() && isDigit(text_[pos_])) digits += text_[pos_++];
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && isDigit(text_[pos_])) {
        digits += text_[pos_++];
        ++fracDigits;
      }
    }
    long exponent = 0;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      const size_t ePos = pos_++;
      bool negative = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        negative = text_[pos_++] == '-';
      }
      if (pos_ >= text_.size() || !isDigit(text_[pos_])) {
        fail(pos_, "expected digits in the exponent");
      }
      while (pos_ < text_.size() && isDigit(text_[pos_])) {
        exponent = exponent * 10 + (text_[pos_++] - '0');
        if (exponent > kMaxExponent) {
          fail(ePos, "exponent out of range (at most " + std::to_string(kMaxExponent) + ")");
        }
      }
      if (negative) exponent = -exponent;
    }
    mpq_class value(mpz_class(digits, 10));
    const long scale = exponent - fracDigits;
    mpz_class power;
    mpz_ui_pow_ui(power.get_mpz_t(), 10, static_cast<unsigned long>(scale < 0 ? -scale : scale));
    if (scale >= 0) {
      value *= power;
    } else {
      value /= power;
    }
    value.canonicalize();
    const size_t piPos = pos_;
    if (takePi()) return Val{Exact(), value, piPos};
    return Val{Exact(value), mpq_class(0)};
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Exact Exact::parse(std::string_view text) { return Parser(text).run(); }

}  // namespace lsrl
