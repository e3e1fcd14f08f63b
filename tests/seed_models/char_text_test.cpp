// Character-level language modelling (core/seed_models/char_text.h) on small temporary
// corpora: the byte classes, windows inside the held-out part for seeds below 2^32 and the
// training part above, a folder read as its dotless regular files in name order, one read
// per path, and the messages for a missing corpus, a short one and wrong widths.
#include "core/seed_models/char_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;
namespace fs = std::filesystem;

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh folder per test: the corpus cache is keyed by path.
class CharText : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        testing_common::tempPath("lsrl-char-text-" + std::to_string(getpid()) + "-",
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

// 1000 bytes of every kind: printable text, newlines, a tab, bytes above 126.
std::string sampleText() {
  std::string text;
  for (int i = 0; text.size() < 1000; ++i) {
    text += "line " + std::to_string(i) + ": the quick brown fox~";
    text += (i % 7 == 0) ? "\t\xc3\xa9\n" : "\n";
  }
  text.resize(1000);
  return text;
}

TEST(CharClass, NewlinePrintableAsciiAndTheRest) {
  EXPECT_EQ(charClass('\n'), 0);
  EXPECT_EQ(charClass(' '), 1);
  EXPECT_EQ(charClass('A'), 'A' - 31);
  EXPECT_EQ(charClass('~'), 95);
  for (const int other : {0, 9, 13, 31, 127, 128, 200, 255})
    EXPECT_EQ(charClass(static_cast<unsigned char>(other)), 96) << other;
  EXPECT_EQ(kCharClasses, 97);
}

TEST_F(CharText, WindowsInTheHeldOutPartBelow2To32AndTheTrainingPartAbove) {
  const std::string text = sampleText();
  writeText(path("book.txt"), text);
  const CharLmParams p{path("book.txt"), 16};
  const auto corpus = charCorpus(p.text);
  ASSERT_EQ(corpus->classes.size(), 1000u);
  EXPECT_EQ(corpus->trainEnd, 900u);
  size_t lowest = 1000, highest = 0;
  for (const uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{499}, kCharHeldOutSeeds - 1,
                              kCharHeldOutSeeds, (uint64_t{7} << 32) + 3, ~uint64_t{0}}) {
    SCOPED_TRACE(seed);
    const CharLmSample s = charLmSample(p, seed);
    EXPECT_EQ(s.heldOut, seed < kCharHeldOutSeeds);
    ASSERT_EQ(s.tokens.size(), 16u);
    ASSERT_EQ(s.targets.size(), 16u);
    if (s.heldOut) {
      EXPECT_GE(s.offset, 900u);
    }
    EXPECT_LE(s.offset + 17, s.heldOut ? 1000u : 900u);
    for (size_t i = 0; i < 16; ++i) {
      EXPECT_EQ(s.tokens[i], charClass(static_cast<unsigned char>(text[s.offset + i])));
      EXPECT_EQ(s.targets[i], charClass(static_cast<unsigned char>(text[s.offset + i + 1])));
    }
  }
  // Offsets are spread over the part: the held-out one has 100 − 16 start positions.
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const size_t at = charLmSample(p, seed).offset;
    lowest = std::min(lowest, at);
    highest = std::max(highest, at);
  }
  EXPECT_EQ(lowest, 900u);
  EXPECT_EQ(highest, 1000u - 17);
  EXPECT_EQ(charLmSample(p, 5).offset, charLmSample(p, 5).offset);
}

TEST_F(CharText, AFolderIsItsDotlessRegularFilesInNameOrder) {
  writeText(path("b"), std::string(600, 'b'));
  writeText(path("a"), std::string(500, 'a'));
  writeText(path("a.dat"), "index");
  writeText(path("a.u8"), "utf8");
  writeText(path(".hidden"), "hidden");
  fs::create_directories(path("sub"));
  writeText(path("sub/c"), "nested");
  fs::create_symlink(path("b"), path("link"));
  const auto corpus = charCorpus(dir_);
  ASSERT_EQ(corpus->classes.size(), 1100u);
  EXPECT_EQ(corpus->classes[0], charClass('a'));
  EXPECT_EQ(corpus->classes[499], charClass('a'));
  EXPECT_EQ(corpus->classes[500], charClass('b'));
  EXPECT_EQ(corpus->trainEnd, 990u);
  // Read once: a change after the first use is not seen.
  writeText(path("c"), "more");
  EXPECT_EQ(charCorpus(dir_).get(), corpus.get());
}

TEST_F(CharText, ConfigKeysWidthsAndRefusedCorpora) {
  const CharLmParams defaults = charLmParams(nlohmann::json::object());
  EXPECT_EQ(defaults.context, 128);
  EXPECT_EQ(defaults.corpusPath(), "/usr/share/games/fortunes");
  const CharLmParams p = charLmParams({{"text", path("x")}, {"lm_context", 9}});
  EXPECT_EQ(p.corpusPath(), path("x"));
  EXPECT_EQ(p.context, 9);
  expectError([] { charLmParams({{"text", 3}}); }, "lattice config", "\"text\"");
  expectError([] { charLmParams({{"lm_context", 0}}); }, "lattice config", "\"lm_context\"");

  EXPECT_NO_THROW(checkCharLmWidths(97, 97));
  expectError([] { checkCharLmWidths(96, 97); }, "char_lm: d_in 96", "the 97 character classes");
  expectError([] { checkCharLmWidths(97, 20); }, "char_lm: d_out 20", "97 character classes");

  const std::string missing = path("no-such-book");
  expectError(
      [&] {
        charLmSample({missing, 8}, 0);
      },
      "char_lm: no text corpus at " + missing, "Debian: apt-get install fortunes");
  // Found once installed: a failed read is not cached.
  writeText(missing, std::string(300, 'x'));
  EXPECT_EQ(charLmSample({missing, 8}, 0).tokens.size(), 8u);

  writeText(path("short"), std::string(200, 'y'));  // 20 held-out bytes
  expectError(
      [&] {
        charLmSample({path("short"), 20}, 0);
      },
      "char_lm: the held-out part",
      "has 20 characters, fewer than a window of lm_context + 1 = 21");
  EXPECT_EQ(charLmSample({path("short"), 19}, 0).tokens.size(), 19u);
  EXPECT_EQ(charLmSample({path("short"), 20}, kCharHeldOutSeeds).tokens.size(), 20u);

  fs::create_directories(path("empty"));
  expectError([&] { charCorpus(path("empty")); }, "char_lm: the text folder",
              "no regular files without a dot");
}

}  // namespace
}  // namespace lsrl::seed_models
