// Token input files (docs/input-format.md) and the exact <-> JSON value helpers.
#include "core/io/sequence_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/numbers/exact_field.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::TempDir;

// The error sequencesFromString gives for `text` read as "in.json".
std::string sequenceLoadError(const std::string& text) {
  return errorOf([&] { sequencesFromString(text, "in.json"); });
}

TEST(SequenceFile, OneSequence) {
  const SequenceBatch b =
      sequencesFromString(R"J({"tokens": [["1/3", "sqrt(2)"], [2, -1.5], ["-1e10", "cos(2*pi/5)"]],
                             "seed": 7, "query": [4, 2, 6]})J",
                          "in.json");
  EXPECT_FALSE(b.isBatch);
  EXPECT_EQ(b.width, 2);
  ASSERT_EQ(b.sequences.size(), 1u);
  const ExactSequence& s = b.sequences[0];
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0][0], Exact::rational(1, 3));
  EXPECT_EQ(s[0][1], Exact::sqrt(2));
  EXPECT_EQ(s[1][1], Exact::rational(-3, 2));
  EXPECT_EQ(s[2][0], Exact(-10000000000LL));
  EXPECT_EQ(s[2][1], Exact::cosPi(2, 5));
  EXPECT_EQ(b.extra, json::parse(R"({"seed": 7, "query": [4, 2, 6]})"));
}

TEST(SequenceFile, Batch) {
  const SequenceBatch b =
      sequencesFromString(R"({"batch": [{"tokens": [[1, 0], [0, 1]]}, {"tokens": [[1, 1]]}]})");
  EXPECT_TRUE(b.isBatch);
  EXPECT_EQ(b.width, 2);
  ASSERT_EQ(b.sequences.size(), 2u);
  EXPECT_EQ(b.sequences[0].size(), 2u);
  EXPECT_EQ(b.sequences[1][0], (ExactVector{Exact(1), Exact(1)}));
  EXPECT_TRUE(b.extra.is_object());
  EXPECT_TRUE(b.extra.empty());
}

TEST(SequenceFile, NumbersAreExact) {
  const SequenceBatch b = sequencesFromString(
      R"({"tokens": [[0.5, 0.1, 18446744073709551615, 1e300, "0.1", "1e-3"]]})");
  const ExactVector& r = b.sequences[0][0];
  EXPECT_EQ(r[0], Exact::rational(1, 2));
  EXPECT_EQ(r[1], Exact(0.1));  // a JSON number is a double: 0.1 is its binary value
  EXPECT_NE(r[1], Exact::rational(1, 10));
  EXPECT_EQ(r[2], Exact(mpz_class("18446744073709551615")));
  EXPECT_EQ(r[3], Exact(1e300));
  EXPECT_EQ(r[4], Exact::rational(1, 10));  // a string is read as written
  EXPECT_EQ(r[5], Exact::rational(1, 1000));
}

TEST(SequenceFile, Errors) {
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [[1], [0], [1], [1, 2]]})"),
            "in.json: tokens[3]: row has 2 values, expected 1 (the width of tokens[0])");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [[1, 2], [3]]})"),
            "in.json: tokens[1]: row has 1 value, expected 2 (the width of tokens[0])");
  EXPECT_EQ(sequenceLoadError(R"({"batch": [{"tokens": [[1, 0]]}, {"tokens": [[1]]}]})"),
            "in.json: batch[1].tokens[0]: row has 1 value, expected 2 (the width of "
            "batch[0].tokens[0])");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": []})"),
            "in.json: tokens: the sequence is empty; expected at least one token");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [[]]})"),
            "in.json: tokens[0]: the row is empty; a token has at least one value");
  EXPECT_EQ(sequenceLoadError(R"({"batch": []})"),
            "in.json: batch: the batch is empty; expected at least one sequence");
  EXPECT_EQ(sequenceLoadError(R"({"batch": [{"tokens": [[1]]}, {}]})"),
            "in.json: batch[1]: missing key \"tokens\"");
  EXPECT_EQ(sequenceLoadError(R"({"batch": [{"tokens": [[1]], "name": "a"}]})"),
            "in.json: batch[0]: unknown key \"name\" (a batch entry has only \"tokens\")");
  EXPECT_EQ(sequenceLoadError(R"({"batch": [[[1]]]})"),
            "in.json: batch[0]: expected an object {\"tokens\": [[...], ...]}, got an array");
  EXPECT_EQ(sequenceLoadError(R"({"batch": {"tokens": [[1]]}})"),
            "in.json: batch: expected an array of {\"tokens\": [[...], ...]} objects, got an "
            "object");
  EXPECT_CONTAINS(sequenceLoadError(R"({"tokens": [[1]], "batch": []})"),
                  "in.json: has both \"tokens\" and \"batch\"");
  EXPECT_CONTAINS(sequenceLoadError(R"({"seed": 1})"), "in.json: missing key \"tokens\"");
  EXPECT_CONTAINS(sequenceLoadError(R"([[1, 2], [3, 4]])"),
                  "in.json: expected a JSON object {\"tokens\": [[...], ...]}");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [1, 0, 1]})"),
            "in.json: tokens[0]: expected a row (an array of values), got the number 1; write "
            "[[1], [0]] for tokens of width 1");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": "abc"})"),
            "in.json: tokens: expected an array of tokens (one row of values per token), got the "
            "string \"abc\"");
}

TEST(SequenceFile, BadValues) {
  const std::string bad = sequenceLoadError(R"({"tokens": [[1, "1/+"]]})");
  EXPECT_CONTAINS(bad, "in.json: tokens[0][1]: cannot parse \"1/+\" at position ");
  EXPECT_CONTAINS(bad, ": expected a number");
  EXPECT_CONTAINS(sequenceLoadError(R"({"tokens": [["1/0"]]})"), "in.json: tokens[0][0]: ");
  EXPECT_CONTAINS(sequenceLoadError(R"J({"tokens": [["sqrt(-1)"]]})J"), "in.json: tokens[0][0]: ");
  EXPECT_CONTAINS(sequenceLoadError(R"({"tokens": [["inf"]]})"),
                  "in.json: tokens[0][0]: cannot parse \"inf\"");
  EXPECT_CONTAINS(sequenceLoadError(R"({"tokens": [["nan"]]})"),
                  "in.json: tokens[0][0]: cannot parse \"nan\"");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [[1e999]]})"),
            "in.json: line 1, column 14: the number 1e999 is out of range (JSON numbers must be "
            "finite doubles; where exact values are accepted, such as matrix entries, write it "
            "as a string: \"1e999\")");
  EXPECT_EQ(sequenceLoadError(R"({"tokens": [[true]]})"),
            "in.json: tokens[0][0]: expected a number or a scalar string such as \"1/3\" or "
            "\"sqrt(2)\", got true");
  EXPECT_CONTAINS(sequenceLoadError("{\"tokens\": [[1, 2],\n [3,"),
                  "in.json: line 2, column 5: malformed JSON");
  // In-memory documents can hold non-finite doubles.
  json d = {{"tokens", json::array({json::array({std::numeric_limits<double>::quiet_NaN()})})}};
  EXPECT_CONTAINS(errorOf([&] { sequencesFromJson(d, "mem"); }), "mem: tokens[0][0]: the number");
  EXPECT_CONTAINS(errorOf([&] { sequencesFromJson(d, "mem"); }), "is not finite");
  // A string "1e999" is the exact integer 10^999.
  const SequenceBatch b = sequencesFromString(R"({"tokens": [["1e999"]]})");
  EXPECT_EQ(b.sequences[0][0][0].sign(), 1);
}

TEST(SequenceFile, ExactToJson) {
  EXPECT_EQ(exactToJson(Exact(5)), json(5));
  EXPECT_EQ(exactToJson(Exact(-7)), json(-7));
  const long long below = (1LL << 53) - 1;
  EXPECT_EQ(exactToJson(Exact(below)), json(below));
  EXPECT_EQ(exactToJson(Exact(-below)), json(-below));
  EXPECT_EQ(exactToJson(Exact(1LL << 53)), json("9007199254740992"));
  EXPECT_EQ(exactToJson(Exact(-(1LL << 53))), json("-9007199254740992"));
  EXPECT_EQ(exactToJson(Exact::rational(1, 3)), json("1/3"));
  EXPECT_EQ(exactToJson(Exact::rational(-1, 2)), json("-1/2"));
  for (const Exact& x : {Exact::sqrt(2), Exact::cosPi(1, 6) / Exact(3), Exact::sinPi(2, 7),
                         Exact(mpz_class(mpz_class(1) << 200)), Exact::rational(1, 3)}) {
    const json j = exactToJson(x);
    ASSERT_TRUE(j.is_string());
    EXPECT_EQ(exactFromJson(j, "x"), x);
  }
  EXPECT_EQ(exactRowsToJson({{Exact(1), Exact::rational(1, 2)}, {Exact(0), Exact(-3)}}),
            json::parse(R"([[1, "1/2"], [0, -3]])"));
  EXPECT_EQ(doubleRowsToJson({{1.5, -0.25}, {std::nan(""), -INFINITY, INFINITY}}),
            json::parse(R"([[1.5, -0.25], ["nan", "-inf", "inf"]])"));
  EXPECT_EQ(exactFromJson(json(3), "w"), Exact(3));
  EXPECT_EQ(exactFromJson(json("1/3"), "w"), Exact::rational(1, 3));
  EXPECT_EQ(errorOf([] { exactFromJson(json::array(), "--set mu"); }),
            "--set mu: expected a number or a scalar string such as \"1/3\" or \"sqrt(2)\", got "
            "an empty array");
  try {
    exactFromJson(json("2*"), "--set mu");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 28), "--set mu: cannot parse \"2*\" ");
    EXPECT_EQ(e.text(), "2*");
  }
}

TEST(SequenceFile, RoundTripThroughRows) {
  const std::vector<ExactVector> rows = {{Exact::sqrt(3) / Exact(2), Exact(1LL << 60)},
                                         {Exact::rational(-5, 7), Exact(0)}};
  const json doc = {{"tokens", exactRowsToJson(rows)}};
  const SequenceBatch b = sequencesFromString(doc.dump());
  EXPECT_EQ(b.sequences[0], rows);
}

TEST(SequenceFile, Files) {
  TempDir dir;
  writeFileAtomically(dir.file("in.json"), R"({"tokens": [[1], [0]]})");
  EXPECT_EQ(loadSequenceFile(dir.file("in.json")).sequences[0].size(), 2u);
  writeFileAtomically(dir.file("bad.json"), R"({"tokens": [[1], []]})");
  EXPECT_EQ(errorOf([&] { loadSequenceFile(dir.file("bad.json")); }),
            dir.file("bad.json") + ": tokens[1]: the row is empty; a token has at least one value");
  EXPECT_EQ(errorOf([&] { loadSequenceFile(dir.file("none.json")); }),
            "cannot read \"" + dir.file("none.json") + "\": no such file");
}

}  // namespace
}  // namespace lsrl
