// The project's exception types. Every message names what went wrong and where
// (file, node, field, expected vs got), because these reach users verbatim.
#pragma once

#include <stdexcept>
#include <string>

namespace lsrl {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
