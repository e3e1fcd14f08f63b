// Echoing what a user gave (a command-line value, a file's text, a JSON string) in a
// message, bounded: every message quotes at most kMaxQuotedInput characters of its input,
// so that a 10^5-character value cannot make a 10^5-character error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lsrl {

constexpr size_t kMaxQuotedInput = 80;

// The text in double quotes when it has at most `max` characters (UTF-8 code points;
// control characters count as their \xNN escapes): "\"abc\"". Longer text keeps the first
// characters, or those around byte offset `focus` (where a parser stopped), with "..."
// where text was left out, and its length: "\"((((...\" (200,001 characters)". A smaller
// `max` suits a second quote in one message (the token a parser stopped at).
std::string quoteInput(std::string_view text, size_t focus = std::string_view::npos,
                       size_t max = kMaxQuotedInput);

// A file's path, bounded like quoteInput but keeping its end, where the file's name is.
inline std::string quotePath(std::string_view path) { return quoteInput(path, path.size()); }

}  // namespace lsrl
