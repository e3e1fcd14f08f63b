// The bundled examples stay in step with the program builders and give the answers
// their input files record.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/executor/executor.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/io/sequence_file.h"
#include "core/programs/program_registry.h"
#include "core/util/atomic_file.h"

namespace lsrl {
namespace {

std::string example(const std::string& name) {
  return std::string(LSRL_SOURCE_DIR) + "/examples/" + name;
}

struct ExampleProgram {
  const char* file;
  const char* program;
  std::map<std::string, std::string> params;
};

class ExampleFiles : public ::testing::TestWithParam<ExampleProgram> {};

// The files also store a layout (ignored by graphHash); tests/layout checks every example.
TEST_P(ExampleFiles, EqualWhatTheBuilderMakesToday) {
  const ExampleProgram& e = GetParam();
  const Graph onDisk = loadGraphFile(example(e.file));
  EXPECT_EQ(graphHash(onDisk), graphHash(buildProgram(e.program, e.params)))
      << e.file << " is stale: regenerate it with scripts/examples.sh";
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, ExampleFiles,
    ::testing::Values(ExampleProgram{"more_ones.json", "more_ones", {}},
                      ExampleProgram{"tok2tok_L3_direct.json",
                                     "tok2tok",
                                     {{"L", "3"}, {"conditional", "direct"}}},
                      ExampleProgram{"vec2vec_n2_m1_direct.json",
                                     "vec2vec",
                                     {{"n", "2"}, {"m", "1"}, {"conditional", "direct"}}}));

// Runs `graph` on `input` exactly and returns the last `count` outputs.
std::vector<ExactVector> lastOutputs(const std::string& graph, const std::string& input,
                                     size_t count) {
  const Graph g = loadGraphFile(example(graph));
  const SequenceBatch batch = loadSequenceFile(example(input));
  ExactExecutor ex(g);
  const auto out = ex.run(batch.sequences.at(0));
  return std::vector<ExactVector>(out.end() - static_cast<long>(count), out.end());
}

TEST(Examples, Tok2tokInputGivesItsExpectedValue) {
  const SequenceBatch batch = loadSequenceFile(example("tok2tok_input.json"));
  const auto expected = batch.extra.at("expected").get<std::vector<int>>();
  const auto got = lastOutputs("tok2tok_L3_direct.json", "tok2tok_input.json", expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(got[i][0], Exact(expected[i]));
}

TEST(Examples, Vec2vecInputGivesItsExpectedValue) {
  const SequenceBatch batch = loadSequenceFile(example("vec2vec_input.json"));
  const Exact expected = exactFromJson(batch.extra.at("expected").at(0), "expected");
  EXPECT_EQ(lastOutputs("vec2vec_n2_m1_direct.json", "vec2vec_input.json", 1)[0][0], expected);
}

TEST(Examples, MoreOnesInputCountsTheMajority) {
  // tokens 1 0 1 1 0 0 0 1: more ones than zeros after steps 0, 2, 3 and 4 only.
  const auto got = lastOutputs("more_ones.json", "more_ones_input.json", 8);
  const int expected[] = {1, 0, 1, 1, 1, 0, 0, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[static_cast<size_t>(i)][0], Exact(expected[i])) << i;
}

}  // namespace
}  // namespace lsrl
