// Compiled model files: exact round trips through the JSON and its safetensors sidecar,
// compactness, and precise errors for damaged or missing sidecars.
#include "core/compiler/model_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/compiler/compiler.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/io/safetensors.h"
#include "core/programs/program_registry.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::graphDifference;
using testing_io::TempDir;

CompileResult compileProgram(const Graph& program, Backend backend, bool optimize) {
  CompileOptions options;
  options.backend = backend;
  options.optimize = optimize;
  return compile(program, options);
}

// The sidecar a model file names (its name carries the sidecar's content hash), or "".
std::string sidecarOf(const std::string& jsonPath) {
  const json doc = json::parse(readWholeFile(jsonPath));
  if (!doc["metadata"].contains("sidecar")) return "";
  return (std::filesystem::path(jsonPath).parent_path() /
          doc["metadata"]["sidecar"]["file"].get<std::string>())
      .string();
}

json metadataOf(const CompileResult& r, bool optimize, const Graph& program) {
  CompileOptions o;
  o.optimize = optimize;
  return compiledMetadata(r, o, {"vec2vec", graphHash(program)}, "gated-linear-rnn");
}

struct RoundTripCase {
  Backend backend;
  bool optimize;
  size_t sidecarMinEntries;  // 1: every matrix in the sidecar; huge: none
};

class ModelRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(ModelRoundTrip, LoadingGivesBackTheSavedGraph) {
  const RoundTripCase c = GetParam();
  Vec2vecParams p;
  p.conditional = Conditional::Multiplicative;
  const Graph program = buildVec2vec(p);
  const CompileResult r = compileProgram(program, c.backend, c.optimize);
  const json compiled = metadataOf(r, c.optimize, program);

  TempDir dir;
  saveModelFile(dir.file("m.json"), r.path, compiled, {c.sidecarMinEntries});
  const CompiledModel loaded = loadModelFile(dir.file("m.json"));
  EXPECT_EQ(graphDifference(loaded.path, r.path), "");
  EXPECT_EQ(loaded.compiled, compiled);
  EXPECT_EQ(loaded.backend(), c.backend);
  EXPECT_EQ(loaded.target(), "gated-linear-rnn");
  const bool sidecar = !sidecarOf(dir.file("m.json")).empty();
  EXPECT_EQ(sidecar, c.sidecarMinEntries == 1);
  // Saving the loaded model again gives the same bytes (deterministic files).
  saveModelFile(dir.file("again.json"), loaded.path, loaded.compiled, {c.sidecarMinEntries});
  json first = json::parse(readWholeFile(dir.file("m.json")));
  json second = json::parse(readWholeFile(dir.file("again.json")));
  if (sidecar) {
    EXPECT_EQ(readWholeFile(sidecarOf(dir.file("m.json"))),
              readWholeFile(sidecarOf(dir.file("again.json"))));
    second["metadata"]["sidecar"]["file"] = first["metadata"]["sidecar"]["file"];
  }
  EXPECT_EQ(first, second);
}

INSTANTIATE_TEST_SUITE_P(Backends, ModelRoundTrip,
                         ::testing::Values(RoundTripCase{Backend::Exact, true, 1},
                                           RoundTripCase{Backend::Exact, false, 1},
                                           RoundTripCase{Backend::Exact, true, size_t{1} << 40},
                                           RoundTripCase{Backend::Float64, true, 1},
                                           RoundTripCase{Backend::Float64, false, 1},
                                           RoundTripCase{Backend::Float64, false, size_t{1} << 40}),
                         [](const ::testing::TestParamInfo<RoundTripCase>& info) {
                           return std::string(backendName(info.param.backend)) +
                                  (info.param.optimize ? "_optimized" : "_plain") +
                                  (info.param.sidecarMinEntries == 1 ? "_sidecar" : "_inline");
                         });

// A hand-made path whose large matrix holds values that are not doubles.
Graph graphWithExactValues(int n) {
  Graph g;
  const NodeId x = g.addInput(n, "x");
  std::vector<ExactMatrix::Entry> entries;
  const Exact values[] = {Exact::rational(1, 3),
                          Exact::parse("cos(pi/6)"),
                          Exact(0.1),
                          Exact::parse("123456789012345678901234567890"),
                          Exact(-2),
                          Exact::parse("sqrt(2)/7 - 1/5")};
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; c += 3) entries.push_back({r, c, values[(r + c) % 6]});
  }
  ExactVector b;
  for (int r = 0; r < n; ++r) b.push_back(r % 2 ? Exact::rational(r, 7) : Exact(r));
  const NodeId lin = g.addLinear(x, ExactMatrix::fromEntries(n, n, entries), b, "mix");
  const NodeId relu = g.addReLU(lin);
  const NodeId s = g.addLinState(relu, ExactMatrix::identity(n), ExactMatrix::identity(n, Exact(3)),
                                 filledVector(n, Exact::rational(-1, 9)), zerosVector(n), "sum");
  g.setOutput(g.addSlice(s, 1, 3, "pick"));
  return g;
}

TEST(ModelFile, ExactValuesThatAreNotDoublesRoundTripThroughTheSidecar) {
  const Graph g = graphWithExactValues(40);
  TempDir dir;
  saveModelFile(dir.file("x.json"), g, json{{"backend", "exact"}}, {16});
  const CompiledModel loaded = loadModelFile(dir.file("x.json"));
  EXPECT_EQ(graphDifference(loaded.path, g), "");
  // The sidecar holds nearest doubles; the JSON lists the exact values.
  const json doc = json::parse(readWholeFile(dir.file("x.json")));
  const json& A = doc["nodes"][1]["A"];
  EXPECT_EQ(A["sidecar"], "nodes.1.A");
  EXPECT_FALSE(A["exact"].empty());
  const TensorFile side = readSafetensors(sidecarOf(dir.file("x.json")));
  const auto val = std::find_if(side.tensors.begin(), side.tensors.end(),
                                [](const Tensor& t) { return t.name == "nodes.1.A.val"; });
  ASSERT_NE(val, side.tensors.end());
  EXPECT_DOUBLE_EQ(val->data[0], 1.0 / 3.0);  // (0, 0) holds 1/3
}

TEST(ModelFile, LargeSparseModelsStayCompact) {
  // A diagonal-heavy path like the compiler's: 4 layers of 100,000 rows, 480,000 non-zeros.
  const int n = 100'000;
  Graph g;
  NodeId x = g.addInput(n);
  for (int layer = 0; layer < 4; ++layer) {
    std::vector<ExactMatrix::Entry> e;
    for (int r = 0; r < n; ++r) {
      e.push_back({r, r, Exact(layer + 1)});
      if (r % 5 == 0) e.push_back({r, (r * 7 + layer) % n, Exact(0.5)});
    }
    x = g.addLinear(x, ExactMatrix::fromEntries(n, n, std::move(e)), zerosVector(n));
  }
  g.setOutput(x);
  TempDir dir;
  saveModelFile(dir.file("big.json"), g, json{{"backend", "float64"}});
  const auto jsonBytes = std::filesystem::file_size(dir.file("big.json"));
  const auto sideBytes = std::filesystem::file_size(sidecarOf(dir.file("big.json")));
  EXPECT_LT(jsonBytes, 4000u);
  EXPECT_LT(sideBytes, 480'000u * 12 + 4u * (n + 1) * 8 + 4096);  // 12 B per non-zero + rows
  const CompiledModel loaded = loadModelFile(dir.file("big.json"));
  EXPECT_EQ(graphDifference(loaded.path, g), "");
}

class ModelFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    saveModelFile(dir_.file("m.json"), graphWithExactValues(20), json{{"backend", "exact"}}, {16});
    doc_ = json::parse(readWholeFile(dir_.file("m.json")));
    sidecar_ = sidecarOf(dir_.file("m.json"));
  }
  std::string loadError(const json& doc) {
    writeFileAtomically(dir_.file("m.json"), doc.dump());
    return errorOf([&] { (void)loadModelFile(dir_.file("m.json")); });
  }
  // Rewrites the sidecar with one tensor changed, keeping the recorded size and hash right.
  std::string errorWithSidecarTensor(const std::string& name,
                                     const std::function<void(Tensor&)>& change) {
    TensorFile f = readSafetensors(sidecar_);
    for (Tensor& t : f.tensors) {
      if (t.name == name) change(t);
    }
    const std::string bytes = safetensorsToBytes(f);
    writeFileAtomically(sidecar_, bytes);
    json doc = doc_;
    doc["metadata"]["sidecar"]["bytes"] = bytes.size();
    doc["metadata"]["sidecar"]["hash"] = fnv1a64Text(bytes);
    return loadError(doc);
  }

  TempDir dir_;
  json doc_;
  std::string sidecar_;
};

TEST_F(ModelFileErrors, MissingSidecarNamesItsPath) {
  std::filesystem::remove(sidecar_);
  const std::string e = errorOf([&] { (void)loadModelFile(dir_.file("m.json")); });
  EXPECT_CONTAINS(e, sidecar_ + "\" is missing");
  EXPECT_CONTAINS(e, "m.json");
}

TEST_F(ModelFileErrors, SidecarFromAnotherSaveIsRefused) {
  std::string bytes = readWholeFile(sidecar_);
  bytes[bytes.size() - 1] ^= 1;
  writeFileAtomically(sidecar_, bytes);
  EXPECT_CONTAINS(errorOf([&] { (void)loadModelFile(dir_.file("m.json")); }),
                  "belongs to another save");
  writeFileAtomically(sidecar_, bytes.substr(0, bytes.size() - 8));
  EXPECT_CONTAINS(errorOf([&] { (void)loadModelFile(dir_.file("m.json")); }), "expected");
}

TEST_F(ModelFileErrors, TensorShapesAndIndicesAreChecked) {
  EXPECT_CONTAINS(errorWithSidecarTensor("nodes.1.A.val",
                                         [](Tensor& t) {
                                           t.data.pop_back();
                                           t.shape[0] -= 1;
                                         }),
                  ".safetensors\" has shape [139], expected [140]");
  SetUp();
  EXPECT_CONTAINS(errorWithSidecarTensor("nodes.1.A.col", [](Tensor& t) { t.data[3] = 99; }),
                  "tensor 'nodes.1.A.col' in \"m.");
  SetUp();
  EXPECT_CONTAINS(
      errorWithSidecarTensor("nodes.1.A.row_start", [](Tensor& t) { t.data[2] = t.data[1] - 1; }),
      ".safetensors\" entry 2 is");
  SetUp();
  EXPECT_CONTAINS(
      errorWithSidecarTensor("nodes.1.A.val", [](Tensor& t) { t.data[8] = std::nan(""); }),
      "non-finite value at position 8");  // (1, 3) holds -2, a double
  SetUp();
  EXPECT_CONTAINS(errorWithSidecarTensor("nodes.1.A.val", [](Tensor& t) { t.name = "other"; }),
                  "has no tensor 'nodes.1.A.val'");
}

TEST_F(ModelFileErrors, MalformedReferencesAreReportedWithTheirLocation) {
  json doc = doc_;
  doc["nodes"][1]["A"]["exact"][0][1] = "1/+";
  EXPECT_CONTAINS(loadError(doc), "nodes[1].A.exact: value at position");
  doc = doc_;
  doc["nodes"][1]["A"]["shape"] = json::array({20});
  EXPECT_CONTAINS(loadError(doc), "nodes[1].A.shape: expected 2 sizes");
  doc = doc_;
  doc["metadata"].erase("sidecar");
  EXPECT_CONTAINS(loadError(doc),
                  "nodes[1].A: refers to the sidecar tensor 'nodes.1.A.row_start', but the file "
                  "names no sidecar");
  doc = doc_;
  doc["metadata"].erase("compiled");
  EXPECT_CONTAINS(loadError(doc), "not a compiled model");
  doc = doc_;
  doc["metadata"]["sidecar"]["file"] = "../m.safetensors";
  EXPECT_CONTAINS(loadError(doc), "must be a plain file name");
  doc = doc_;
  doc["nodes"][2]["A"] = doc_["nodes"][1]["A"];  // a ReLU has no matrix
  EXPECT_CONTAINS(loadError(doc), "nodes[2]: unknown key \"A\" for a ReLU node");
}

TEST_F(ModelFileErrors, AbsurdWidthsAreRefusedBeforeAllocating) {
  json doc = doc_;
  doc["metadata"].erase("sidecar");
  doc["nodes"] = json::array({json{{"id", 0}, {"op", "Input"}, {"dim", 1 << 20}}});
  for (int i = 1; i <= 16; ++i)  // 17 * 2^20 > 2^24
    doc["nodes"].push_back(json{{"id", i}, {"op", "ReLU"}, {"dim", 1 << 20}, {"inputs", {i - 1}}});
  EXPECT_CONTAINS(loadError(doc), "nodes[16]: the model is too large to load");
}

TEST(ModelFile, SavesAreAtomicAndLeaveNoTemporaryFiles) {
  TempDir dir;
  const Graph g = graphWithExactValues(20);
  saveModelFile(dir.file("m.json"), g, json{{"backend", "exact"}}, {16});
  saveModelFile(dir.file("m.json"), g, json{{"backend", "exact"}}, {16});
  const std::string sidecar = std::filesystem::path(sidecarOf(dir.file("m.json"))).filename();
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{sidecar, "m.json"}));
  // A model file is a graph document: a plain graph loader refuses its sidecar references
  // instead of reading zeros.
  EXPECT_CONTAINS(errorOf([&] { (void)loadGraphFile(dir.file("m.json")); }), "nodes[1].A");
}

TEST(ModelFile, AModelAndItsSidecarAreReplacedAsOnePair) {
  TempDir dir;
  const std::string path = dir.file("m.json");
  saveModelFile(path, graphWithExactValues(20), json{{"backend", "exact"}}, {16});
  const std::string oldSidecar = sidecarOf(path);
  // The sidecar is named by its content: m.<16 hex digits>.safetensors.
  const std::string name = std::filesystem::path(oldSidecar).filename();
  EXPECT_EQ(name.size(), std::string("m.").size() + 16 + std::string(".safetensors").size());
  EXPECT_EQ(name.rfind("m.", 0), 0u);

  // A save killed after writing its sidecar and before the JSON's rename leaves the old JSON
  // and the old sidecar untouched: the old pair still loads.
  const Graph other = graphWithExactValues(30);
  SidecarWriter writer(16);
  for (NodeId id : other.programNodes()) {
    const Node& n = other.node(id);
    if (n.op == Op::Linear || n.op == Op::LinState) writer.putMatrix("k" + std::to_string(id), n.A);
  }
  const json orphan = writeSidecar(path, writer.file());
  EXPECT_NE(orphan["file"], name);
  EXPECT_EQ(graphDifference(loadModelFile(path).path, graphWithExactValues(20)), "");

  // The next save replaces the pair and removes both older sidecars.
  saveModelFile(path, other, json{{"backend", "exact"}}, {16});
  EXPECT_EQ(graphDifference(loadModelFile(path).path, other), "");
  EXPECT_FALSE(std::filesystem::exists(oldSidecar));
  EXPECT_FALSE(std::filesystem::exists(dir.file(orphan["file"].get<std::string>())));
  EXPECT_EQ(dir.entries().size(), 2u);
  // Other files beside it are left alone, even ones that look like a sidecar of another name.
  writeFileAtomically(dir.file("m.safetensors"), "weights");
  writeFileAtomically(dir.file("mm.0123456789abcdef.safetensors"), "other");
  saveModelFile(path, graphWithExactValues(20), json{{"backend", "exact"}}, {16});
  EXPECT_TRUE(std::filesystem::exists(dir.file("m.safetensors")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("mm.0123456789abcdef.safetensors")));
}

}  // namespace
}  // namespace lsrl
