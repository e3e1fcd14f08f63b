// The project's exception types. Every message names what went wrong and where
// (file, node, field, expected vs got), because these reach users verbatim.
#pragma once

#include <stdexcept>
#include <string>

namespace lsrl {

// Every message is made printable and bounded here, once for all callers: control
// characters (a NUL would cut the message short) are escaped, and a message longer than
// kMaxErrorMessage characters keeps its head and tail around a note of what was left out,
// so an echoed input cannot make a 200 KB error.
constexpr size_t kMaxErrorMessage = 6000;
std::string boundedMessage(const std::string& message);

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(boundedMessage(message)) {}
  explicit Error(const char* message) : Error(std::string(message)) {}
};

// Malformed text: a scalar, a JSON document, a command-line value.
class ParseError : public Error {
 public:
  ParseError(const std::string& what, std::string text, size_t position)
      : Error(what), text_(std::move(text)), position_(position) {}
  const std::string& text() const { return text_; }
  size_t position() const { return position_; }

 private:
  std::string text_;
  size_t position_;
};

// Long work stopped on request (Ctrl-C, a Cancel button): not a failure of the input.
class Cancelled : public Error {
 public:
  using Error::Error;
};

}  // namespace lsrl
