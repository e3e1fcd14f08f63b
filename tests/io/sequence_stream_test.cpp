// streamSequenceFile: the token reader of long runs accepts what loadSequenceFile accepts,
// hands over the same rows in file order without keeping them, and refuses with
// loadSequenceFile's own located message.
#include "core/io/sequence_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "core/io/sequence_file.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

class SequenceStream : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lsrl_stream_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& text) {
    const std::string path = (dir_ / ("in" + std::to_string(count_++) + ".json")).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
  int count_ = 0;
};

TEST_F(SequenceStream, HandsOverTheRowsLoadSequenceFileReads) {
  for (const std::string text : {
           R"j({"tokens": [[1], [0], ["1/3"], [2.5]]})j",
           R"j({"seed": {"a": [1, {"b": 2}]}, "batch": [{"tokens": [[1, "sqrt(2)"], [0, 0]]},
               {"tokens": [[3, -1]]}], "query": [4]})j",
           R"j({"batch": [{"tokens": [["cos(pi/6)"]]}, {"tokens": [[1], [2], [3]]}]})j",
       }) {
    SCOPED_TRACE(text);
    const std::string path = file(text);
    const SequenceBatch whole = loadSequenceFile(path);
    std::vector<ExactSequence> streamed;
    const SequenceFileShape shape =
        streamSequenceFile(path, [&](size_t sequence, size_t token, ExactVector&& row) {
          if (sequence == streamed.size()) streamed.emplace_back();
          ASSERT_EQ(sequence + 1, streamed.size());
          ASSERT_EQ(token, streamed.back().size());
          streamed.back().push_back(std::move(row));
        });
    EXPECT_EQ(streamed, whole.sequences);
    EXPECT_EQ(shape.isBatch, whole.isBatch);
    EXPECT_EQ(shape.width, whole.width);
    ASSERT_EQ(shape.lengths.size(), whole.sequences.size());
    long long conductor = 4;
    size_t tokens = 0;
    for (size_t i = 0; i < whole.sequences.size(); ++i) {
      EXPECT_EQ(shape.lengths[i], whole.sequences[i].size());
      tokens += whole.sequences[i].size();
      for (const ExactVector& row : whole.sequences[i])
        for (const Exact& x : row) conductor = std::lcm(conductor, x.conductor());
    }
    EXPECT_EQ(shape.tokens, tokens);
    EXPECT_EQ(shape.conductor, conductor);
  }
}

TEST_F(SequenceStream, RefusesWithTheWholeFileReadersMessage) {
  for (const std::string text : {
           R"j([[1]])j",
           R"j({"tokens": [[1]], "batch": []})j",
           R"j({"batch": [{"tokens": [[1]]}], "tokens": [[1]]})j",
           R"j({"batch": []})j",
           R"j({"batch": [[1]]})j",
           R"j({"batch": [{"tokens": [[1]], "extra": 1}]})j",
           R"j({"batch": [{}]})j",
           R"j({"tokens": []})j",
           R"j({"tokens": [1, 0]})j",
           R"j({"tokens": [[1], [1, 2]]})j",
           R"j({"tokens": [[1], []]})j",
           R"j({"tokens": [[true]]})j",
           R"j({"tokens": [["x/"]]})j",
           R"j({"tokens": [[1e400]]})j",
           R"j({"tokens": [[1]], "seed": {"a": 1, "a": 2}})j",
           R"j({"tokens": [[1]]} trailing)j",
           R"j({"other": 1})j",
           R"j({"tokens": [[1]])j",
           R"j("text")j",
       }) {
    SCOPED_TRACE(text);
    const std::string path = file(text);
    std::string expected;
    try {
      (void)loadSequenceFile(path);
      ADD_FAILURE() << "loadSequenceFile accepted it";
    } catch (const Error& e) {
      expected = e.what();
    }
    try {
      (void)streamSequenceFile(path, nullptr);
      ADD_FAILURE() << "the stream accepted it";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

TEST_F(SequenceStream, TheCallersErrorPassesThroughUnchanged) {
  const std::string path = file(R"j({"tokens": [[1], [2], [3]]})j");
  size_t seen = 0;
  try {
    streamSequenceFile(path, [&](size_t, size_t token, ExactVector&&) {
      ++seen;
      if (token == 1) throw std::runtime_error("stop at token 1");
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "stop at token 1");
  }
  EXPECT_EQ(seen, 2u) << "nothing after the failing token";
}

}  // namespace
}  // namespace lsrl
