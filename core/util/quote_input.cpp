#include "core/util/quote_input.h"

#include <algorithm>

#include "core/util/thousands.h"

namespace lsrl {

namespace {

constexpr std::string_view kEllipsis = "...";

bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Bytes of the well-formed UTF-8 character at `at`, or 0 for a byte that starts none.
size_t characterBytes(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t n = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) n = 2;
  if (lead >= 0xE0 && lead <= 0xEF) n = 3;
  if (lead >= 0xF0 && lead <= 0xF4) n = 4;
  if (n == 0 || at + n > text.size()) return 0;
  for (size_t i = 1; i < n; ++i) {
    if (!isContinuation(static_cast<unsigned char>(text[at + i]))) return 0;
  }
  return n;
}

struct Shown {
  std::string text;
  size_t bytes;  // of the input
  size_t width;  // characters in the message
};

// One character as shown: itself, or \xNN for a control character or a stray byte (the
// message stays printable UTF-8 whatever the input was).
Shown shown(std::string_view text, size_t at) {
  const size_t bytes = characterBytes(text, at);
  const auto c = static_cast<unsigned char>(text[at]);
  if (bytes == 0 || c < 0x20 || c == 0x7F) {
    static const char kHex[] = "0123456789abcdef";
    return {{'\\', 'x', kHex[c >> 4], kHex[c & 0xF]}, 1, 4};
  }
  return {std::string(text.substr(at, bytes)), bytes, 1};
}

size_t characterCount(std::string_view text) {
  size_t n = 0;
  for (size_t at = 0; at < text.size(); at += std::max<size_t>(1, characterBytes(text, at))) ++n;
  return n;
}

// The characters from byte `from` whose shown width fits `budget`; `end` is where it stopped.
std::string shownRun(std::string_view text, size_t from, size_t budget, size_t& end) {
  std::string out;
  size_t width = 0;
  end = from;
  while (end < text.size()) {
    const Shown piece = shown(text, end);
    if (width + piece.width > budget) break;
    out += piece.text;
    width += piece.width;
    end += piece.bytes;
  }
  return out;
}

// Where a window of about `max` characters around byte `focus` starts: half of it before
// the focus, more when the text after the focus is shorter than the other half (a focus
// at the end shows the end: the file name of a long path).
size_t windowStart(std::string_view text, size_t focus, size_t max) {
  if (focus == std::string_view::npos) return 0;
  const size_t at = std::min(focus, text.size());
  size_t after = 0;
  for (size_t i = at; i < text.size() && after < max / 2; ++after)
    i += std::max<size_t>(1, characterBytes(text, i));
  size_t start = at;
  for (size_t back = after + 2 * kEllipsis.size(); back < max && start > 0; ++back) {
    --start;
    while (start > 0 && isContinuation(static_cast<unsigned char>(text[start]))) --start;
  }
  return start;
}

}  // namespace

std::string quoteInput(std::string_view text, size_t focus, size_t max) {
  max = std::max(max, 2 * kEllipsis.size() + 1);
  size_t end = 0;
  const std::string whole = shownRun(text, 0, max, end);
  if (end == text.size()) return "\"" + whole + "\"";

  const size_t start = windowStart(text, focus, max);
  const size_t lead = start > 0 ? kEllipsis.size() : 0;
  std::string body = shownRun(text, start, max - lead, end);
  if (end < text.size()) body = shownRun(text, start, max - lead - kEllipsis.size(), end);
  return "\"" + std::string(lead > 0 ? kEllipsis : "") + body +
         std::string(end < text.size() ? kEllipsis : "") + "\" (" +
         withThousands(characterCount(text)) + " characters)";
}

}  // namespace lsrl
