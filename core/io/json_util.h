// Private helpers of the file loaders (graph_file.cpp, sequence_file.cpp): JSON text
// parsing with locations, value descriptions for error messages, and the conversion
// of JSON values to Exact without exceptions on the fast path.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/numbers/exact.h"

namespace lsrl::io {

// Deepest nesting of arrays/objects a loaded document may have.
constexpr int kMaxJsonDepth = 256;

// Parses a JSON document. Throws lsrl::ParseError "<source>: line L, column C: ..." on
// malformed text, numbers that do not fit a double (1e999), duplicate object keys and
// nesting deeper than kMaxJsonDepth; "<source>: unexpected data after the JSON document at
// byte offset N: ..." for anything but whitespace after it (a NUL byte included); and
// "<source>: the file is UTF-16 (...), not UTF-8: ..." for UTF-16 or UTF-32 text.
nlohmann::json parseJson(std::string_view text, const std::string& source);

// "the string \"abc\"" (quoteInput: at most 80 characters of it), "the number 3", "true",
// "null", "an array", "an object".
std::string describeJson(const nlohmann::json& v);

// A JSON number or scalar-grammar string -> Exact; false if it is not one (the fast
// path of the loaders: no message is built). exactValueError() then throws the reason,
// naming `where`: lsrl::ParseError for malformed scalar text, lsrl::Error otherwise.
bool tryExactFromJson(const nlohmann::json& v, Exact& out);
[[noreturn]] void exactValueError(const nlohmann::json& v, const std::string& where);

// JSON integer -> long long when it is one (signed or unsigned within range).
bool jsonInteger(const nlohmann::json& v, long long& out);

// The loaders' error: lsrl::Error "<source>: <where>: <what>" (no "<where>: " when empty).
[[noreturn]] void failAt(const std::string& source, const std::string& where,
                         const std::string& what);
// `v` when it is an integer in [lo, hi]; otherwise failAt(source, where, "expected an
// integer in lo..hi, got v").
long long integerAt(const nlohmann::json& v, const std::string& source, const std::string& where,
                    long long lo, long long hi);

}  // namespace lsrl::io
