// Hostile input makes short messages: whatever a user gives (a 10^5-deep parenthesis, 2^63,
// a UTF-16 file, bytes after the JSON document, a 10 KB name), the CLI says what is wrong
// in at most 300 characters a line, quoting at most 80 characters of the input. (Every
// other CLI test checks the 300 too: cli_test_util.h's lsrl() does.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace lsrl::cli::test {
namespace {

std::string reproducer(const std::string& name) {
  return std::string(LSRL_TEST_DATA_DIR) + "/robustness/" + name;
}

// The longest run of `c` in `text`: how much of an input made of `c` a message echoes.
size_t longestRun(const std::string& text, char c) {
  size_t longest = 0;
  size_t current = 0;
  for (const char x : text) {
    current = x == c ? current + 1 : 0;
    longest = std::max(longest, current);
  }
  return longest;
}

class MessageLength : public CliFixture {
 protected:
  // A refusal (exit 1, or 2 for an unknown command) whose message contains `part`; the
  // length of each line is checked by lsrl() itself.
  std::string refused(const std::vector<std::string>& args, const std::string& part, int code = 1) {
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    return r.err;
  }

  // more_ones as a graph file, with a good input beside it (in.json).
  std::string moreOnes() {
    EXPECT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
    write("in.json", R"({"tokens": [[1], [0]]})");
    return path("mo.json");
  }

  // A one-node graph whose Linear has the matrix entry `entry` (JSON text).
  void graphWithEntry(const std::string& name, const std::string& entry) {
    write(name, R"({"format": "lsrl-graph", "version": 2, "output": 1, "nodes": [
      {"id": 0, "op": "Input", "dim": 1},
      {"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
       "A": {"shape": [1, 1], "entries": [[0, 0, )" +
                    entry + "]]}}]}");
  }
};

// A 10^5-deep parenthesis in a matrix entry: quoted bounded where the parser stopped.
// (Test names are short: the fixture's folder, named after the test, is in the message.)
TEST_F(MessageLength, DeepParenthesis) {
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  graphWithEntry("paren.json", "\"" + deep + "\"");
  const std::string err = refused({"info", path("paren.json")},
                                  "paren.json: nodes[1].A.entries[0][2]: cannot parse \"...");
  EXPECT_NE(err.find("...\" (200,001 characters) at position 200: expression nested too deeply"),
            std::string::npos)
      << err;
  EXPECT_LE(longestRun(err, '('), 80u) << err;
  EXPECT_LT(err.size(), 300u) << err;
}

// 2^63 is out of range as the user wrote it, never echoed as -2^63.
TEST_F(MessageLength, TwoToThe63) {
  const std::string big = "9223372036854775808";
  refused({"program", "tok2tok", "--set", "L=" + big, "-o", path("t.json")},
          "program tok2tok, parameter L: expected an integer in 1..1024, got \"" + big + "\"");
  write("lattice.json", R"({"heads": )" + big + "}");
  const std::string lattice =
      refused({"model", "run", "lattice", "--config", path("lattice.json")},
              "lattice config: \"heads\" must be an integer between 1 and 1000000, got the "
              "number " +
                  big);
  EXPECT_EQ(lattice.find("-" + big), std::string::npos) << lattice;
  write("mingru.json", R"({"d_model": )" + big + "}");
  refused({"model", "run", "mingru", "--config", path("mingru.json")},
          "\"d_model\": expected an integer in 1..1000000, got the number " + big);
  refused({"run", moreOnes(), "--input", path("in.json"), "--threads", big},
          "expects an integer in");
}

// A UTF-16 file is named as such, whatever its byte order and mark.
TEST_F(MessageLength, Utf16) {
  // {"tokens": [[1]]} as UTF-16 with and without a byte order mark, both byte orders.
  const std::string doc = R"({"tokens": [[1]]})";
  std::string le, be;
  for (const char c : doc) {
    le += std::string{c, '\0'};
    be += std::string{'\0', c};
  }
  const std::string program = moreOnes();
  const struct {
    const char* name;
    std::string bytes;
    const char* encoding;
  } files[] = {
      {"le_bom.json", "\xFF\xFE" + le, "UTF-16 (little-endian, with a byte order mark)"},
      {"be_bom.json", "\xFE\xFF" + be, "UTF-16 (big-endian, with a byte order mark)"},
      {"le.json", le, "UTF-16 (little-endian, without a byte order mark)"},
      {"be.json", be, "UTF-16 (big-endian, without a byte order mark)"},
  };
  for (const auto& f : files) {
    SCOPED_TRACE(f.name);
    write(f.name, f.bytes);
    const std::string said =
        std::string(f.name) + ": the file is " + f.encoding + ", not UTF-8: save it as UTF-8";
    refused({"run", program, "--input", path(f.name)}, said);
    refused({"info", path(f.name)}, said);
  }
}

// Bytes after the JSON document (a NUL, garbage) are refused with their offset.
TEST_F(MessageLength, TrailingBytes) {
  const std::string input = reproducer("input_trailing_nul_garbage.json");
  refused({"run", moreOnes(), "--input", input},
          "input_trailing_nul_garbage.json: line 1, column 21: unexpected data after the JSON "
          "document at byte offset 20: \"\\x00garbage\" (only whitespace may follow it)");
  refused({"run", moreOnes(), "--input", input, "--exact"}, "at byte offset 20");
  refused({"info", reproducer("model_trailing_nul_garbage.model.json")},
          "unexpected data after the JSON document at "
          "byte offset 1550: \"\\x00{\"this is\": garbage\"");
  // Garbage without a NUL, and after whitespace: the offset of its first byte.
  write("x.json", "{\"tokens\": [[1]]} \n x");
  refused({"run", moreOnes(), "--input", path("x.json")},
          "x.json: line 2, column 2: unexpected data after the JSON document at byte offset 20: "
          "\"x\"");
  write("num.json", "{\"tokens\": [[1]]}123");
  refused({"info", path("num.json")}, "at byte offset 17: \"123\"");
  // A long tail is quoted bounded.
  write("long.json", "{}" + std::string(10000, 'g'));
  const std::string err = refused({"info", path("long.json")}, "at byte offset 2: \"ggg");
  EXPECT_LE(longestRun(err, 'g'), 80u) << err;
}

// A 10 KB name anywhere is quoted bounded.
TEST_F(MessageLength, TenKilobyteName) {
  const std::string name(10000, 'g');
  const std::string program = moreOnes();
  // Each case: the arguments and the start of the quote; the quote ends with the length of
  // what it quotes (10,000 characters, more for a path in the test's folder, whose quote
  // keeps its end).
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{name}, "lsrl: unknown command \"ggg"},
      {{"info", "--" + name}, "unknown option \"--ggg"},
      {{"program", name, "-o", path("p.json")}, "unknown program \"ggg"},
      {{"program", "tok2tok", "--set", name + "=1", "-o", path("p.json")},
       "unknown parameter \"ggg"},
      {{"program", "tok2tok", "--set", "L=" + name, "-o", path("p.json")},
       "parameter L: cannot parse \"ggg"},
      {{"info", path(name)}, "cannot read \""},
      {{"run", program, "--input", path("in.json"), "--threads", name}, "got \"ggg"},
      {{"model", "run", name}, "unknown model \"ggg"},
  };
  for (const auto& [args, part] : cases) {
    SCOPED_TRACE(part);
    const Result r = lsrl(args);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    EXPECT_LE(longestRun(r.err, 'g'), 80u) << r.err;
    EXPECT_NE(r.err.find("\" (10,"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace lsrl::cli::test
