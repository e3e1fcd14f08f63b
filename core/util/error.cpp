#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr size_t kTailKept = 1000;

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  static const char kHex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string boundedMessage(const std::string& message) {
  std::string text = printable(message);
  if (text.size() <= kMaxErrorMessage) return text;
  const std::string note =
      " [... " + std::to_string(text.size() - (kMaxErrorMessage - kTailKept) - kTailKept) +
      " characters left out ...] ";
  return text.substr(0, kMaxErrorMessage - kTailKept) + note + text.substr(text.size() - kTailKept);
}

}  // namespace lsrl
