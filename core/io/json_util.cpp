#include "core/io/json_util.h"

#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl::io {

namespace {

using nlohmann::json;

// Builds the DOM from nlohmann's SAX events (as json::parse does), and in addition
// rejects duplicate keys and excessive nesting, and keeps the byte position of
// syntax errors so that every error can name its line and column.
class DomBuilder {
 public:
  explicit DomBuilder(json& root) : root_(root) {}

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(json::number_integer_t v) { return value(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(v); }
  bool number_float(json::number_float_t v, const std::string& /*text*/) { return value(v); }
  bool string(std::string& v) { return value(std::move(v)); }
  bool binary(json::binary_t& v) { return value(json::binary(std::move(v))); }

  bool start_object(std::size_t /*size*/) { return open(json::value_t::object); }
  bool start_array(std::size_t /*size*/) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    json& obj = *stack_.back();
    if (obj.contains(k)) {
      message_ = containerPath(stack_.size()) + ": duplicate key \"" + k +
                 "\" (each key may appear once in an object)";
      return false;
    }
    slot_ = &obj[k];
    keys_.back() = k;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    position_ = position;
    if (ex.id == 406) {  // out_of_range.406: number overflow; point at the number's start
      if (position >= token.size()) position_ = position - token.size() + 1;
      message_ = "the number " + token +
                 " is out of range (JSON numbers must be finite doubles; where exact values "
                 "are accepted, such as matrix entries, write it as a string: \"" +
                 token + "\")";
    } else {
      std::string what = ex.what();
      // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax ..."
      const size_t column = what.find("column ");
      size_t cut = column == std::string::npos ? std::string::npos : what.find(": ", column);
      if (cut == std::string::npos) {
        cut = what.find("] ");
        cut = cut == std::string::npos ? 0 : cut + 2;
      } else {
        cut += 2;
      }
      message_ = "malformed JSON: " + what.substr(cut);
    }
    return false;
  }

  const std::optional<std::string>& message() const { return message_; }
  std::optional<size_t> position() const { return position_; }

 private:
  json* place(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  bool value(json v) {
    place(std::move(v));
    return true;
  }

  bool open(json::value_t type) {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      message_ = containerPath(stack_.size()) + childComponent(stack_.size() - 1) +
                 ": nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    stack_.push_back(place(json(type)));
    keys_.emplace_back();
    return true;
  }

  bool close() {
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }

  // The component naming the child of level `i` that is being built: "[3]" or ".key".
  std::string childComponent(size_t i) const {
    const json& c = *stack_[i];
    std::string s;
    if (c.is_array()) {
      s += '[';
      s += std::to_string(c.empty() ? 0 : c.size() - 1);
      s += ']';
    } else {
      if (i > 0) s += '.';
      s += keys_[i];
    }
    return s;
  }

  // The JSON path of the container at level `levels - 1` ("" for the root: "document").
  std::string containerPath(size_t levels) const {
    std::string path;
    for (size_t i = 0; i + 1 < levels; ++i) path += childComponent(i);
    return path.empty() ? "the document" : path;
  }

  json& root_;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;
  json* slot_ = nullptr;
  std::optional<std::string> message_;
  std::optional<size_t> position_;
};

// Line and column (both 1-based) of the last character read after `position` bytes,
// counted the way nlohmann's lexer counts them.
std::pair<size_t, size_t> lineColumn(std::string_view text, size_t position) {
  size_t line = 1;
  size_t column = 0;
  const size_t end = std::min(position, text.size());
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  if (position > text.size()) ++column;  // the error is at the end of the text
  return {line, column};
}

std::string quoted(const std::string& s) {
  constexpr size_t kMax = 40;
  if (s.size() <= kMax) return "\"" + s + "\"";
  return "\"" + s.substr(0, kMax) + "...\"";
}

}  // namespace

json parseJson(std::string_view text, const std::string& source) {
  json root;
  DomBuilder builder(root);
  bool ok = false;
  try {
    ok = json::sax_parse(text, &builder);
  } catch (const json::exception& e) {  // not expected with a SAX handler; be safe
    throw ParseError(source + ": malformed JSON: " + e.what(), std::string(text), 0);
  }
  if (ok && !builder.message()) return root;
  const std::string message = builder.message().value_or("malformed JSON");
  if (const auto position = builder.position()) {
    const auto [line, column] = lineColumn(text, *position);
    throw ParseError(source + ": line " + std::to_string(line) + ", column " +
                         std::to_string(column) + ": " + message,
                     std::string(text), *position);
  }
  throw ParseError(source + ": " + message, std::string(text), 0);
}

std::string describeJson(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return "the string " + quoted(v.get_ref<const std::string&>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (std::isnan(d)) return "the number nan";
      if (std::isinf(d)) return d > 0 ? "the number inf" : "the number -inf";
      return "the number " + v.dump();
    }
    case json::value_t::array:
      return v.empty() ? "an empty array" : "an array";
    case json::value_t::object:
      return v.empty() ? "an empty object" : "an object";
    default:
      return "a binary value";
  }
}

bool jsonInteger(const json& v, long long& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<json::number_unsigned_t>();
    if (u > static_cast<json::number_unsigned_t>(LLONG_MAX)) return false;
    out = static_cast<long long>(u);
    return true;
  }
  if (v.is_number_integer()) {
    out = v.get<json::number_integer_t>();
    return true;
  }
  return false;
}

bool tryExactFromJson(const json& v, Exact& out) {
  switch (v.type()) {
    case json::value_t::number_integer:
      out = Exact(static_cast<long long>(v.get<json::number_integer_t>()));
      return true;
    case json::value_t::number_unsigned: {
      const auto u = v.get<json::number_unsigned_t>();
      if (u <= static_cast<json::number_unsigned_t>(LLONG_MAX)) {
        out = Exact(static_cast<long long>(u));
      } else {
        out = Exact(mpz_class(std::to_string(u)));
      }
      return true;
    }
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (!std::isfinite(d)) return false;
      out = Exact(d);
      return true;
    }
    case json::value_t::string:
      try {
        out = Exact::parse(v.get_ref<const std::string&>());
        return true;
      } catch (const Error&) {
        return false;
      }
    default:
      return false;
  }
}

void exactValueError(const json& v, const std::string& where) {
  if (v.is_number_float()) {
    throw Error(where + ": " + describeJson(v) +
                " is not finite; values must be finite (inf and nan are not numbers here)");
  }
  if (v.is_string()) {
    try {
      (void)Exact::parse(v.get_ref<const std::string&>());
    } catch (const ParseError& e) {
      throw ParseError(where + ": " + e.what(), e.text(), e.position());
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
  }
  throw Error(where +
              ": expected a number or a scalar string such as \"1/3\" or \"sqrt(2)\", got " +
              describeJson(v));
}

void failAt(const std::string& source, const std::string& where, const std::string& what) {
  throw Error(source + ": " + (where.empty() ? "" : where + ": ") + what);
}

long long integerAt(const nlohmann::json& v, const std::string& source, const std::string& where,
                    long long lo, long long hi) {
  long long x = 0;
  if (!jsonInteger(v, x) || x < lo || x > hi) {
    failAt(source, where,
           "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
               v.dump());
  }
  return x;
}

}  // namespace lsrl::io
