// quoteInput: short text quoted whole; long text cut to 80 characters (the head, or a window
// around a parser's stop), with its length; UTF-8 never split; control bytes escaped.
#include "core/util/quote_input.h"

#include <gtest/gtest.h>

#include <string>

namespace lsrl {
namespace {

// Characters between the quotes (UTF-8 code points; an escape \xNN counts as its four).
size_t quotedCharacters(const std::string& quoted) {
  const size_t close = quoted.rfind('"');
  size_t n = 0;
  for (size_t i = 1; i < close; ++i) n += (static_cast<unsigned char>(quoted[i]) & 0xC0) != 0x80;
  return n;
}

TEST(QuoteInput, ShortTextIsQuotedWhole) {
  EXPECT_EQ(quoteInput(""), "\"\"");
  EXPECT_EQ(quoteInput("1/+"), "\"1/+\"");
  EXPECT_EQ(quoteInput(std::string(80, 'a')), "\"" + std::string(80, 'a') + "\"");
}

TEST(QuoteInput, LongTextKeepsItsHeadAndSaysHowLongItIs) {
  EXPECT_EQ(quoteInput(std::string(81, 'a')),
            "\"" + std::string(77, 'a') + "...\" (81 characters)");
  const std::string parens = std::string(100000, '(') + "1" + std::string(100000, ')');
  const std::string q = quoteInput(parens);
  EXPECT_EQ(q, "\"" + std::string(77, '(') + "...\" (200,001 characters)");
  EXPECT_EQ(quotedCharacters(q), 80u);
}

TEST(QuoteInput, AFocusShowsTheTextAroundIt) {
  const std::string text = std::string(1000, 'a') + "X" + std::string(1000, 'b');
  const std::string q = quoteInput(text, 1000);
  EXPECT_NE(q.find('X'), std::string::npos) << q;
  EXPECT_EQ(q.substr(0, 4), "\"...") << q;
  EXPECT_NE(q.find("...\" (2,001 characters)"), std::string::npos) << q;
  EXPECT_EQ(quotedCharacters(q), 80u) << q;
  // A focus near either end needs only one "...".
  EXPECT_EQ(quoteInput(text, 3).substr(0, 4), "\"aaa");
  const std::string atEnd = quotePath(text);
  EXPECT_EQ(atEnd.substr(0, 4), "\"...");
  EXPECT_NE(atEnd.find("bbb\" (2,001 characters)"), std::string::npos) << atEnd;
}

TEST(QuoteInput, ASmallerBoundSuitsASecondQuote) {
  EXPECT_EQ(quoteInput(std::string(30, 'x'), std::string::npos, 24),
            "\"" + std::string(21, 'x') + "...\" (30 characters)");
  EXPECT_EQ(quoteInput("short", std::string::npos, 24), "\"short\"");
}

TEST(QuoteInput, MultiByteCharactersAreNeverSplit) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "π";  // 2 bytes each
  const std::string q = quoteInput(text);
  std::string head;
  for (int i = 0; i < 77; ++i) head += "π";
  EXPECT_EQ(q, "\"" + head + "...\" (100 characters)");
}

TEST(QuoteInput, ControlBytesAndStrayBytesAreEscaped) {
  EXPECT_EQ(quoteInput(std::string("a\0b", 3)), "\"a\\x00b\"");
  EXPECT_EQ(quoteInput("\xff\xfe{"), "\"\\xff\\xfe{\"");
  // Each escape counts as four characters of the 80.
  const std::string q = quoteInput(std::string(100, '\0'));
  EXPECT_EQ(
      q, "\"" + [] {
        std::string s;
        for (int i = 0; i < 19; ++i) s += "\\x00";
        return s;
      }() + "...\" (100 characters)");
}

}  // namespace
}  // namespace lsrl
