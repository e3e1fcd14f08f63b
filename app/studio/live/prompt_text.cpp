#include "app/studio/live/prompt_text.h"

#include <sstream>

#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::studio {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : text) {
    if (c == separator) {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(part);
  return parts;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool blank(const std::string& s) { return words(s).empty(); }

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// A token's values: separated by commas when it has any, else by spaces.
std::vector<std::string> values(const std::string& token) {
  if (token.find(',') == std::string::npos) return words(token);
  std::vector<std::string> out;
  for (const std::string& v : split(token, ',')) out.push_back(trimmed(v));
  return out;
}

}  // namespace

ExactSequence parsePromptText(const std::string& text, int width) {
  std::vector<std::vector<std::string>> tokens;
  const bool separated =
      text.find(';') != std::string::npos || text.find('\n') != std::string::npos;
  if (!separated && width == 1) {
    // One value per token: spaces or commas between them.
    std::string spaced = text;
    for (char& c : spaced)
      if (c == ',') c = ' ';
    for (const std::string& w : words(spaced)) tokens.push_back({w});
  } else {
    std::string unified = text;
    for (char& c : unified)
      if (c == '\n') c = ';';
    for (const std::string& token : split(unified, ';'))
      if (!blank(token)) tokens.push_back(values(token));
  }
  ExactSequence out;
  for (size_t t = 0; t < tokens.size(); ++t) {
    const int got = static_cast<int>(tokens[t].size());
    const int want = width > 0 ? width : static_cast<int>(tokens.front().size());
    if (got != want)
      throw Error("token " + std::to_string(t) + " has " + std::to_string(got) +
                  (got == 1 ? " value" : " values") + ", the program's Input takes " +
                  std::to_string(want) + (want > 1 ? " (separate tokens with ';')" : ""));
    ExactVector row;
    for (size_t i = 0; i < tokens[t].size(); ++i) {
      try {
        row.push_back(Exact::parse(tokens[t][i]));
      } catch (const Error& e) {
        throw Error("token " + std::to_string(t) + ", value " + std::to_string(i) + ": " +
                    quoteInput(tokens[t][i]) + " is not a number (" + e.what() + ")");
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::string promptText(const ExactSequence& tokens) {
  const bool scalar = !tokens.empty() && tokens.front().size() == 1;
  std::string s;
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (t > 0) s += scalar ? " " : "; ";
    for (size_t i = 0; i < tokens[t].size(); ++i) s += (i ? ", " : "") + tokens[t][i].toString();
  }
  return s;
}

}  // namespace lsrl::studio
