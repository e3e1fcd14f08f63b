// The example graphs in examples/ are what the program builders make today (same
// graphHash) and carry a stored layout for every item the explorer draws, so that
// they open laid out. Regenerate them with scripts/examples.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "app/layout/visible_graph.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/programs/program_registry.h"
#include "core/util/atomic_file.h"

namespace lsrl {
namespace {

const char* const kVariants[] = {"direct", "optimized", "step_optimized", "multiplicative",
                                 "multiplicative_optimized"};

std::filesystem::path examplesDir() { return std::filesystem::path(LSRL_SOURCE_DIR) / "examples"; }

struct ProgramCall {
  std::string program;
  std::map<std::string, std::string> params;
};

// The builder call a file name stands for: more_ones.json, vec2vec_n<N>_m<M>_<variant>.json,
// tok2tok_L<L>_<variant>.json.
std::optional<ProgramCall> callFor(const std::string& file) {
  static const std::regex vec2vec(R"(vec2vec_n(\d+)_m(\d+)_(\w+)\.json)");
  static const std::regex tok2tok(R"(tok2tok_L(\d+)_(\w+)\.json)");
  std::smatch m;
  if (file == "more_ones.json") return ProgramCall{"more_ones", {}};
  if (std::regex_match(file, m, vec2vec)) {
    return ProgramCall{"vec2vec", {{"n", m[1]}, {"m", m[2]}, {"conditional", m[3]}}};
  }
  if (std::regex_match(file, m, tok2tok)) {
    return ProgramCall{"tok2tok", {{"L", m[1]}, {"conditional", m[2]}}};
  }
  return std::nullopt;
}

// Every graph file under examples/ (other JSON files there are inputs and dictionaries).
std::vector<std::string> exampleGraphFiles() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(examplesDir())) {
    if (entry.path().extension() != ".json") continue;
    const auto doc = io::parseJson(readWholeFile(entry.path().string()), entry.path().string());
    if (doc.is_object() && doc.value("format", "") == "lsrl-graph")
      out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ExampleGraphs, EveryVariantIsThere) {
  const auto files = exampleGraphFiles();
  const std::set<std::string> have(files.begin(), files.end());
  std::vector<std::string> expected = {"more_ones.json"};
  for (const char* v : kVariants) {
    expected.push_back(std::string("vec2vec_n2_m1_") + v + ".json");
    expected.push_back(std::string("tok2tok_L3_") + v + ".json");
  }
  for (const auto& name : expected) EXPECT_TRUE(have.count(name)) << "missing examples/" << name;
}

TEST(ExampleGraphs, EqualWhatTheBuildersMakeAndAreLaidOut) {
  const auto files = exampleGraphFiles();
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto call = callFor(file);
    ASSERT_TRUE(call) << "examples/" << file << ": the file name names no program";
    const Graph onDisk = loadGraphFile((examplesDir() / file).string());
    const Graph built = buildProgram(call->program, call->params);
    EXPECT_EQ(graphHash(onDisk), graphHash(built))
        << "examples/" << file << " is stale: regenerate it with scripts/examples.sh";
    const VisibleGraph vg = visibleGraph(onDisk);
    size_t unplaced = 0;
    for (const VisibleItem& item : vg.items) {
      const bool node = item.kind == VisibleItem::Kind::Node;
      unplaced += (node ? onDisk.layout() : onDisk.groupLayout()).count(item.id) == 0;
    }
    EXPECT_EQ(unplaced, 0u) << "examples/" << file << ": " << unplaced << " of " << vg.items.size()
                            << " visible items have no stored position";
    EXPECT_EQ(onDisk.layout().size(), onDisk.nodeCount()) << "hidden members are placed too";
  }
}

}  // namespace
}  // namespace lsrl
