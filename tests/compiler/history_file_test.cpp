// Compile history files: graphAt from a loaded file equals the in-memory history's, in
// both backends; damaged files are reported precisely.
#include "core/compiler/history_file.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/compiler/compiler.h"
#include "core/io/graph_hash.h"
#include "core/programs/program_registry.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::graphDifference;
using testing_io::TempDir;

CompileResult compileWithHistory(const Graph& program, Backend backend, bool optimize) {
  CompileOptions options;
  options.backend = backend;
  options.optimize = optimize;
  options.replayableHistory = true;
  return compile(program, options);
}

void expectSameSteps(const std::vector<compiler::Step>& a, const std::vector<compiler::Step>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].rule, b[k].rule) << "step " << k;
    EXPECT_EQ(a[k].branch, b[k].branch) << "step " << k;
    EXPECT_EQ(a[k].nodesAdded, b[k].nodesAdded) << "step " << k;
    EXPECT_EQ(a[k].nodesRemoved, b[k].nodesRemoved) << "step " << k;
    EXPECT_EQ(a[k].edgesAdded, b[k].edgesAdded) << "step " << k;
    EXPECT_EQ(a[k].edgesRemoved, b[k].edgesRemoved) << "step " << k;
    EXPECT_EQ(a[k].outputBefore, b[k].outputBefore) << "step " << k;
    EXPECT_EQ(a[k].outputAfter, b[k].outputAfter) << "step " << k;
    EXPECT_EQ(a[k].inputsSet, b[k].inputsSet) << "step " << k;
  }
}

struct HistoryCase {
  Backend backend;
  bool optimize;
};

class HistoryFileRoundTrip : public ::testing::TestWithParam<HistoryCase> {};

TEST_P(HistoryFileRoundTrip, GraphAtFromTheFileEqualsTheInMemoryHistory) {
  Vec2vecParams p;
  p.conditional = Conditional::Multiplicative;
  const Graph program = buildVec2vec(p);
  const CompileResult r = compileWithHistory(program, GetParam().backend, GetParam().optimize);
  ASSERT_TRUE(r.history);

  TempDir dir;
  // A small sidecar threshold so that both the inline and the sidecar forms are used.
  saveHistoryFile(dir.file("h.json"), program, r, {"vec2vec", graphHash(program)}, 8);
  const json saved = json::parse(readWholeFile(dir.file("h.json")));  // names its sidecar
  EXPECT_TRUE(std::filesystem::exists(dir.file(saved["sidecar"]["file"].get<std::string>())));
  const LoadedHistory loaded = loadHistoryFile(dir.file("h.json"));
  EXPECT_EQ(loaded.backend, GetParam().backend);
  EXPECT_EQ(loaded.source["name"], "vec2vec");
  expectSameSteps(loaded.steps, r.steps);
  ASSERT_EQ(loaded.history->stepCount(), r.history->stepCount());

  const size_t n = r.steps.size();
  std::vector<size_t> at = {0, 1, n / 2, n - 1, n};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 12; ++i) at.push_back(std::uniform_int_distribution<size_t>(0, n)(rng));
  for (size_t k : at) {
    EXPECT_EQ(graphDifference(loaded.history->graphAt(k), r.history->graphAt(k)), "")
        << "step " << k;
  }
  EXPECT_EQ(graphDifference(loaded.history->graphAt(n), r.path), "");
  EXPECT_THROW((void)loaded.history->graphAt(n + 1), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryFileRoundTrip,
                         ::testing::Values(HistoryCase{Backend::Exact, false},
                                           HistoryCase{Backend::Exact, true},
                                           HistoryCase{Backend::Float64, false},
                                           HistoryCase{Backend::Float64, true}),
                         [](const ::testing::TestParamInfo<HistoryCase>& info) {
                           return std::string(backendName(info.param.backend)) +
                                  (info.param.optimize ? "_optimized" : "_plain");
                         });

// The accessor saving uses: payloads by IR id, as the program (step 0) and the final
// path (pathIds) show them, and the same after a save and load.
// The payload fields (no id, inputs, group or flags) that differ; empty if none.
std::string payloadDifference(const Node& a, const Node& b) {
  std::string d;
  auto check = [&d](bool same, const char* field) {
    if (!same) d += std::string(d.empty() ? "" : ", ") + field;
  };
  check(a.op == b.op, "op");
  check(a.dim == b.dim, "dim");
  check(a.name == b.name, "name");
  check(a.slice == b.slice, "slice");
  check(a.A == b.A, "A");
  check(a.B == b.B, "B");
  check(a.b == b.b, "b");
  check(a.init == b.init, "init");
  check(a.bias == b.bias, "bias");
  return d;
}

TEST_P(HistoryFileRoundTrip, PayloadsByIrIdMatchTheProgramAndThePath) {
  Vec2vecParams p;
  p.conditional = Conditional::Multiplicative;
  const Graph program = buildVec2vec(p);
  const CompileResult r = compileWithHistory(program, GetParam().backend, GetParam().optimize);
  ASSERT_TRUE(r.history);
  const CompileHistory& h = *r.history;
  EXPECT_EQ(h.initialOutput(), program.output());
  const auto initial = h.initialInputs();
  EXPECT_EQ(initial.size(), program.programNodes().size());
  for (const auto& [id, ins] : initial) {
    EXPECT_EQ(ins, program.node(id).inputs) << "node " << id;
    if (GetParam().backend == Backend::Exact) {
      const auto payload = h.payload(id);
      ASSERT_TRUE(payload) << "node " << id;
      EXPECT_EQ(payloadDifference(*payload, program.node(id)), "") << "program node " << id;
    }
  }
  ASSERT_EQ(r.pathIds.size(), r.path.nodeCount());
  for (size_t k = 0; k < r.pathIds.size(); ++k) {
    const auto payload = h.payload(r.pathIds[k]);
    ASSERT_TRUE(payload) << "path node " << k;
    EXPECT_EQ(payloadDifference(*payload, r.path.node(static_cast<NodeId>(k))), "")
        << "path node " << k;
  }
  EXPECT_FALSE(h.payload(static_cast<NodeId>(h.idLimit())));

  TempDir dir;
  saveHistoryFile(dir.file("h.json"), program, r, {}, 8);
  const LoadedHistory loaded = loadHistoryFile(dir.file("h.json"));
  EXPECT_EQ(loaded.history->initialInputs(), initial);
  for (NodeId id = 0; id < static_cast<NodeId>(loaded.history->idLimit()); ++id) {
    const auto back = loaded.history->payload(id);
    if (!back) continue;
    const auto original = h.payload(id);
    ASSERT_TRUE(original) << "node " << id;
    EXPECT_EQ(payloadDifference(*back, *original), "") << "node " << id;
  }
}

// The history written while the compile runs (HistoryFileWriter as the compile's sink,
// as `lsrl compile --history` does) loads back to the same steps, graphs and payloads as
// the in-memory history of the same compile.
TEST_P(HistoryFileRoundTrip, StreamedWhileCompilingEqualsTheInMemoryHistory) {
  Vec2vecParams p;
  p.conditional = Conditional::Multiplicative;
  const Graph program = buildVec2vec(p);
  TempDir dir;
  HistoryWriteOptions writeOptions;
  writeOptions.source = {"vec2vec", graphHash(program)};
  writeOptions.sidecarMinEntries = 8;  // both the inline and the sidecar forms
  HistoryFileWriter writer(dir.file("s.json"), GetParam().backend, program.conductor(),
                           writeOptions);
  CompileOptions options;
  options.backend = GetParam().backend;
  options.optimize = GetParam().optimize;
  options.replayableHistory = true;  // the reference, from the same compile
  options.historySink = &writer;
  const CompileResult r = compile(program, options);
  ASSERT_TRUE(r.history);
  writer.finish(r.steps);
  EXPECT_GT(writer.bytesSoFar(), 0u);

  const LoadedHistory loaded = loadHistoryFile(dir.file("s.json"));
  EXPECT_EQ(loaded.backend, GetParam().backend);
  EXPECT_EQ(loaded.source["name"], "vec2vec");
  expectSameSteps(loaded.steps, r.steps);
  EXPECT_EQ(loaded.history->initialInputs(), r.history->initialInputs());
  EXPECT_EQ(loaded.history->initialOutput(), r.history->initialOutput());
  const size_t n = r.steps.size();
  for (size_t k = 0; k <= n; k += std::max<size_t>(1, n / 16)) {
    EXPECT_EQ(graphDifference(loaded.history->graphAt(k), r.history->graphAt(k)), "")
        << "step " << k;
  }
  EXPECT_EQ(graphDifference(loaded.history->graphAt(n), r.path), "");
  for (NodeId id = 0; id < static_cast<NodeId>(r.history->idLimit()); ++id) {
    const auto original = r.history->payload(id);
    if (!original) continue;
    const auto back = loaded.history->payload(id);
    ASSERT_TRUE(back) << "node " << id;
    EXPECT_EQ(payloadDifference(*back, *original), "") << "node " << id;
  }
  // Only the pair: no temporary or scratch file is left.
  const json saved = json::parse(readWholeFile(dir.file("s.json")));
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{saved["sidecar"]["file"].get<std::string>(), "s.json"}));
}

// tok2tok (L=3, direct) in float64: graphAt from a loaded file, timed (the budget is
// 20 ms per call in a Release build; sanitizer builds only check the graphs).
TEST(HistoryFile, Tok2tokGraphAtFromTheFileMatchesAndIsTimed) {
  const Graph program = buildProgram("tok2tok", {{"L", "3"}, {"conditional", "direct"}});
  const CompileResult r = compileWithHistory(program, Backend::Float64, true);
  TempDir dir;
  saveHistoryFile(dir.file("t.json"), program, r);
  const LoadedHistory loaded = loadHistoryFile(dir.file("t.json"));
  const size_t n = loaded.history->stepCount();
  std::mt19937_64 rng(3);
  double total = 0, worst = 0;
  const int calls = 8;
  for (int i = 0; i < calls; ++i) {
    const size_t k = i == 0 ? n : std::uniform_int_distribution<size_t>(0, n)(rng);
    const auto t0 = std::chrono::steady_clock::now();
    const Graph g = loaded.history->graphAt(k);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total += s;
    worst = std::max(worst, s);
    EXPECT_EQ(graphDifference(g, r.history->graphAt(k)), "") << "step " << k;
  }
  RecordProperty("graphAt_mean_ms", std::to_string(1000 * total / calls));
  RecordProperty("graphAt_max_ms", std::to_string(1000 * worst));
  std::cout << "tok2tok L=3 direct float64: " << n << " steps, graphAt from file mean "
            << 1000 * total / calls << " ms, max " << 1000 * worst << " ms\n";
}

// A history that passes its size limit stops the compile with a message that says so, and
// nothing is left on disk: not the file, not its sidecar, not a temporary.
TEST(HistoryFile, AStreamedHistoryPastItsLimitStopsTheCompileAndLeavesNothing) {
  const Graph program = buildProgram("tok2tok", {{"L", "2"}, {"conditional", "direct"}});
  TempDir dir;
  std::string message;
  {
    HistoryWriteOptions writeOptions;
    writeOptions.limitBytes = 20000;
    writeOptions.limitHint = "; (hint)";
    HistoryFileWriter writer(dir.file("h.json"), Backend::Exact, program.conductor(), writeOptions);
    CompileOptions options;
    options.optimize = false;
    options.historySink = &writer;
    message = errorOf([&] { (void)compile(program, options); });
    EXPECT_GT(writer.bytesSoFar(), 20000u);
  }
  EXPECT_CONTAINS(message, "h.json\" passed its size limit of 20,000 bytes at ");
  EXPECT_CONTAINS(message, " node payloads; (hint)");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

class HistoryFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = buildProgram("more_ones", {});
    const CompileResult r = compileWithHistory(program_, Backend::Exact, false);
    saveHistoryFile(dir_.file("h.json"), program_, r, {}, 4);
    doc_ = json::parse(readWholeFile(dir_.file("h.json")));
  }
  std::string loadError(const json& doc) {
    writeFileAtomically(dir_.file("h.json"), doc.dump());
    return errorOf([&] { (void)loadHistoryFile(dir_.file("h.json")); });
  }

  TempDir dir_;
  Graph program_;
  json doc_;
};

TEST_F(HistoryFileErrors, StructureAndReferencesAreChecked) {
  json doc = doc_;
  doc["format"] = "lsrl-graph";
  EXPECT_CONTAINS(loadError(doc), "h.json: format: expected \"lsrl-history\"");
  doc = doc_;
  doc["version"] = 9;
  EXPECT_CONTAINS(loadError(doc), "history format version 9, newer than this build");
  doc = doc_;
  doc["steps"][0]["nodes_added"] = json::array({doc_["id_limit"].get<int>() - 1 + 5});
  EXPECT_CONTAINS(loadError(doc), "steps[0].nodes_added[0]: expected an integer in 0..");
  doc = doc_;
  doc["payloads"].erase(doc["payloads"].size() - 1);
  EXPECT_CONTAINS(loadError(doc), "has no entry in \"payloads\"");
  doc = doc_;
  size_t linear = 0;
  while (doc_["payloads"][linear]["op"] != "Linear") ++linear;
  doc["payloads"][linear]["dim"] = 1000;
  EXPECT_CONTAINS(loadError(doc), "payloads[" + std::to_string(linear) + "].A: has ");
  EXPECT_CONTAINS(loadError(doc), "rows, expected 1000");
  doc = doc_;
  doc["steps"][0].erase("rule");
  EXPECT_CONTAINS(loadError(doc), "steps[0]: missing key \"rule\"");
}

TEST_F(HistoryFileErrors, SaveNeedsAReplayableHistory) {
  CompileOptions o;  // replayableHistory off
  const CompileResult r = compile(program_, o);
  EXPECT_CONTAINS(errorOf([&] { saveHistoryFile(dir_.file("x.json"), program_, r); }),
                  "replayableHistory");
  EXPECT_FALSE(std::filesystem::exists(dir_.file("x.json")));
}

TEST_F(HistoryFileErrors, MissingSidecarIsNamed) {
  ASSERT_TRUE(doc_.contains("sidecar"));
  const std::string sidecar = doc_["sidecar"]["file"].get<std::string>();
  std::filesystem::remove(dir_.file(sidecar));
  EXPECT_CONTAINS(errorOf([&] { (void)loadHistoryFile(dir_.file("h.json")); }),
                  sidecar + "\" is missing");
}

}  // namespace
}  // namespace lsrl
