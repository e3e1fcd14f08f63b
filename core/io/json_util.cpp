#include "core/io/json_util.h"

#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "core/numbers/exact_field.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::io {

namespace {

using nlohmann::json;

// nlohmann's "...; last read: '<token>'" quotes the whole token, which may be a megabyte
// long string; the token is quoted bounded instead.
std::string boundedLastRead(const std::string& message) {
  static constexpr std::string_view kLastRead = "last read: '";
  const size_t start = message.find(kLastRead);
  if (start == std::string::npos) return message;
  const size_t from = start + kLastRead.size();
  // "...; last read: '<token>'" may be followed by "; expected '[', '{', or a literal".
  size_t end = message.rfind("'; expected ");
  if (end == std::string::npos || end < from) end = message.rfind('\'');
  if (end == std::string::npos || end < from) return message;
  return message.substr(0, start) +
         "last read: " + quoteInput(std::string_view(message).substr(from, end - from)) +
         message.substr(end + 1);
}

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
      const bool shortToken = token.size() <= kMaxQuotedInput;
      message_ = "the number " + (shortToken ? token : quoteInput(token)) +
                 " is out of range (JSON numbers must be finite doubles; where exact values "
                 "are accepted, such as matrix entries, write it as a string: \"" +
                 (shortToken ? token : "...") + "\")";
    } else if (std::string_view(ex.what()).ends_with("; expected end of input")) {
      trailingData_ = true;  // documentEnd() finds where
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
      message_ = "malformed JSON: " + boundedLastRead(what.substr(cut));
    }
    return false;
  }

  const std::optional<std::string>& message() const { return message_; }
  std::optional<size_t> position() const { return position_; }
  // Whether data after a complete document is what stopped the parser.
  bool trailingData() const { return trailingData_; }

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
  bool trailingData_ = false;
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

// "UTF-16 (little-endian, with a byte order mark)" and the like for text that is UTF-16 or
// UTF-32 (a byte order mark, or the NUL bytes beside each ASCII character that such text
// has); "" for anything else.
std::string wideEncoding(std::string_view text) {
  const auto starts = [&](std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
  };
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv)) return "UTF-32 (little-endian, with a byte order mark)";
  if (starts("\0\0\xFE\xFF"sv)) return "UTF-32 (big-endian, with a byte order mark)";
  if (starts("\xFF\xFE"sv)) return "UTF-16 (little-endian, with a byte order mark)";
  if (starts("\xFE\xFF"sv)) return "UTF-16 (big-endian, with a byte order mark)";
  if (text.size() < 2) return "";
  // JSON text starts with an ASCII character ({, [, a space ...), which UTF-16 and UTF-32
  // write with NUL bytes after it (little-endian) or before it (big-endian).
  if (starts("\0\0\0"sv) && text.size() >= 4)
    return "UTF-32 (big-endian, without a byte order mark)";
  if (text.size() >= 4 && text[0] != '\0' && text.substr(1, 3) == "\0\0\0"sv)
    return "UTF-32 (little-endian, without a byte order mark)";
  const auto nulAt = [&](size_t i) { return i >= text.size() || text[i] == '\0'; };
  if (text[0] != '\0' && nulAt(1) && nulAt(3))
    return "UTF-16 (little-endian, without a byte order mark)";
  if (text[0] == '\0' && text[1] != '\0' && nulAt(2))
    return "UTF-16 (big-endian, without a byte order mark)";
  return "";
}

// Where the document at the start of `text` ends, and the data after it starts (past
// whitespace): parsed again without the check for the end of the input, from a stream
// whose position then says how far the parser read. (nlohmann's error position and token
// text do not say where a stray token started.)
size_t trailingDataStart(std::string_view text) {
  json document;
  DomBuilder builder(document);
  std::istringstream in{std::string(text)};
  (void)json::sax_parse(in, &builder, json::input_format_t::json, /*strict=*/false);
  const std::streamoff read = in.tellg();
  size_t end = read < 0 ? text.size() : std::min(static_cast<size_t>(read), text.size());
  if (document.is_number() && end > 0) --end;  // the byte after a number was read too
  while (end < text.size() &&
         (text[end] == ' ' || text[end] == '\t' || text[end] == '\n' || text[end] == '\r'))
    ++end;
  return end;
}

}  // namespace

json parseJson(std::string_view text, const std::string& source) {
  if (const std::string encoding = wideEncoding(text); !encoding.empty()) {
    throw ParseError(source + ": the file is " + encoding +
                         ", not UTF-8: save it as UTF-8 (JSON files are read as UTF-8)",
                     std::string(text), 0);
  }
  json root;
  DomBuilder builder(root);
  bool ok = false;
  try {
    ok = json::sax_parse(text, &builder);
  } catch (const json::exception& e) {  // not expected with a SAX handler; be safe
    throw ParseError(source + ": malformed JSON: " + e.what(), std::string(text), 0);
  }
  // nlohmann's lexer takes a NUL byte for the end of the text: a document it accepted
  // ends where the first NUL is (a NUL inside the document is a syntax error).
  std::optional<size_t> trailing;
  if (builder.trailingData()) trailing = trailingDataStart(text);
  if (ok && !builder.message()) {
    const size_t nul = text.find('\0');
    if (nul == std::string_view::npos) return root;
    trailing = nul;
  }
  if (trailing) {
    const size_t at = std::min(*trailing, text.size());
    // Located like every parse error: the line and column of the first byte read past it.
    const size_t position = builder.position().value_or(at + 1);
    const auto [line, column] = lineColumn(text, position);
    throw ParseError(
        source + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
            ": unexpected data after the JSON document at byte offset " + std::to_string(at) +
            ": " + quoteInput(text.substr(at)) + " (only whitespace may follow it)",
        std::string(text), position);
  }
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
      return "the string " + quoteInput(v.get_ref<const std::string&>());
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
               describeJson(v));
  }
  return x;
}

}  // namespace lsrl::io
