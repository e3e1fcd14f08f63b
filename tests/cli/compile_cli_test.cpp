// `lsrl compile`, `lsrl run MODEL.json` and `lsrl export`: compiled models run like their
// programs, exports read back with the core/io readers, and Ctrl-C leaves no files.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "core/compiler/history_file.h"
#include "core/compiler/model_file.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "core/targets/targets.h"
#include "core/util/atomic_file.h"

namespace lsrl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::lsrl;
using test::Result;

class CompileCli : public test::CliFixture {
 protected:
  // Builds a program file and an input file for it (more_ones has no prompt builder: a
  // fixed bit sequence).
  void makeProgram(const std::string& name, const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"program", name};
    int L = 3;
    for (const std::string& s : sets) {
      args.push_back("--set");
      args.push_back(s);
      if (s.rfind("L=", 0) == 0) L = std::stoi(s.substr(2));
    }
    args.push_back("-o");
    args.push_back(path("p.json"));
    ASSERT_EQ(lsrl(args).code, 0);
    if (name == "more_ones") {
      std::ofstream(path("in.json")) << R"({"tokens": [[1], [0], [1], [1], [0], [0], [0], [1]]})";
      return;
    }
    std::vector<std::string> prompt = {"prompt", name, "-o", path("in.json")};
    if (name == "tok2tok") {
      for (const std::string& extra :
           {std::string("--random"), std::string("3"), std::string("-L"), std::to_string(L)})
        prompt.push_back(extra);
    }
    const Result in = lsrl(prompt);
    ASSERT_EQ(in.code, 0) << in.err;
  }
};

TEST_F(CompileCli, CompiledModelRunsExactlyLikeTheProgram) {
  for (const char* conditional : {"direct", "multiplicative"}) {
    makeProgram("vec2vec", {std::string("conditional=") + conditional});
    for (const char* optimize : {"", "--no-optimize"}) {
      std::vector<std::string> args = {"compile", path("p.json"), "--backend",
                                       "exact",   "-o",           path("m.json")};
      if (*optimize) args.push_back(optimize);
      const Result c = lsrl(args);
      ASSERT_EQ(c.code, 0) << c.err;
      const Result program = lsrl({"run", path("p.json"), "--input", path("in.json"), "--exact"});
      const Result model = lsrl({"run", path("m.json"), "--input", path("in.json"), "--exact"});
      ASSERT_EQ(program.code, 0) << program.err;
      ASSERT_EQ(model.code, 0) << model.err;
      EXPECT_EQ(json::parse(model.out), json::parse(program.out)) << conditional << optimize;
      const Result info = lsrl({"info", path("m.json")});  // models (with a sidecar) too
      ASSERT_EQ(info.code, 0) << info.err;
      EXPECT_EQ(json::parse(info.out)["total_nodes"], json::parse(c.out)["nodes_after"]);
    }
  }
}

TEST_F(CompileCli, PrintsOneJsonLineWithTheSizes) {
  makeProgram("tok2tok", {"L=2"});
  const Result c = lsrl({"compile", path("p.json"), "--backend", "float64", "-o", path("m.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 1);
  const json line = json::parse(c.out);
  for (const char* key : {"steps", "rule_counts", "nodes_before", "nodes_after", "layers",
                          "state_dim", "dense_params", "nonzero_params", "seconds"})
    EXPECT_TRUE(line.contains(key)) << key;
  long long counted = 0;
  for (const auto& [rule, n] : line["rule_counts"].items()) counted += n.get<long long>();
  EXPECT_EQ(counted, line["steps"].get<long long>());
  EXPECT_EQ(line["nodes_after"].get<int>(), line["layers"].get<int>() + 1);  // + the Input

  // The model records the same numbers.
  const CompiledModel m = loadModelFile(path("m.json"));
  EXPECT_EQ(m.backend(), Backend::Float64);
  EXPECT_EQ(m.compiled["steps"], line["steps"]);
  EXPECT_EQ(m.compiled["sizes"]["state_dim"], line["state_dim"]);
  EXPECT_EQ(m.compiled["sizes"]["nonzero_params"], line["nonzero_params"]);
  EXPECT_EQ(m.compiled["source"]["name"], "tok2tok");  // the file's metadata names it
  EXPECT_EQ(graphSize(m.path).denseParams, line["dense_params"].get<long long>());
}

TEST_F(CompileCli, FloatModelsRefuseExactRuns) {
  makeProgram("more_ones", {});
  ASSERT_EQ(lsrl({"compile", path("p.json"), "--backend", "float64", "-o", path("m.json")}).code,
            0);
  const Result exact = lsrl({"run", path("m.json"), "--input", path("in.json"), "--exact"});
  EXPECT_EQ(exact.code, 1);
  EXPECT_NE(exact.err.find("compiled with --backend float64"), std::string::npos) << exact.err;
  const Result floating = lsrl({"run", path("m.json"), "--input", path("in.json")});
  EXPECT_EQ(floating.code, 0) << floating.err;
  const Result program = lsrl({"run", path("p.json"), "--input", path("in.json")});
  EXPECT_EQ(json::parse(floating.out), json::parse(program.out));  // small integers: exact
}

TEST_F(CompileCli, HistoryOptionWritesAReplayableHistory) {
  makeProgram("more_ones", {});
  const Result c = lsrl({"compile", path("p.json"), "--backend", "exact", "--no-optimize",
                         "--history", path("h.json"), "-o", path("m.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  const LoadedHistory h = loadHistoryFile(path("h.json"));
  EXPECT_EQ(static_cast<long long>(h.steps.size()), json::parse(c.out)["steps"].get<long long>());
  const CompiledModel m = loadModelFile(path("m.json"));
  const Graph last = h.history->graphAt(h.steps.size());
  ASSERT_EQ(last.nodeCount(), m.path.nodeCount());
  for (NodeId id = 0; id < static_cast<NodeId>(last.nodeCount()); ++id) {
    EXPECT_TRUE(last.node(id).A == m.path.node(id).A) << id;
    EXPECT_EQ(last.node(id).inputs, m.path.node(id).inputs) << id;
  }
}

TEST_F(CompileCli, ExportWritesTheTargetTensorsInBothFormats) {
  makeProgram("vec2vec", {"conditional=multiplicative"});
  ASSERT_EQ(lsrl({"compile", path("p.json"), "--backend", "exact", "-o", path("m.json")}).code, 0);
  const CompiledModel model = loadModelFile(path("m.json"));
  const bool hasMulti = firstMulti(model.path) != kNoNode;
  const Target expected = hasMulti ? Target::GatedLinearRnn : Target::LinearRnn;
  const TargetModel built = buildTarget(model.path, expected);

  const Result st = lsrl({"export", path("m.json"), "--format", "safetensors", "-o", path("w.st")});
  ASSERT_EQ(st.code, 0) << st.err;
  EXPECT_EQ(json::parse(st.out)["target"], std::string(targetName(expected)));
  const Result npz = lsrl({"export", path("m.json"), "--format", "npz", "-o", path("w.npz")});
  ASSERT_EQ(npz.code, 0) << npz.err;
  for (const TensorFile& f : {readSafetensors(path("w.st")), readNpz(path("w.npz"))}) {
    const auto want = built.tensors();
    ASSERT_EQ(f.tensors.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(f.tensors[i].name, want[i].name);
      EXPECT_EQ(f.tensors[i].shape, want[i].shape);
      EXPECT_EQ(f.tensors[i].data, want[i].data) << want[i].name;
    }
    const json meta = json::parse(f.metadataJson);
    EXPECT_EQ(meta["arch"], std::string(targetArchName(expected)));
    EXPECT_EQ(meta["source"]["program"], "vec2vec");
    EXPECT_EQ(meta["source"]["hash"], model.compiled["source"]["hash"]);
  }
  // An explicit target; linear-rnn refuses a program with a Multi.
  const Result rnn = lsrl({"export", path("m.json"), "--target", "gated-rnn", "-o", path("g.st")});
  EXPECT_EQ(rnn.code, 0) << rnn.err;
  if (hasMulti) {
    const Result lin =
        lsrl({"export", path("m.json"), "--target", "linear-rnn", "-o", path("l.st")});
    EXPECT_EQ(lin.code, 1);
    EXPECT_NE(lin.err.find("Multi"), std::string::npos) << lin.err;
    EXPECT_FALSE(fs::exists(path("l.st")));
    // compile --target checks the same before writing anything.
    const Result c =
        lsrl({"compile", path("p.json"), "--target", "linear-rnn", "-o", path("l.json")});
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.err.find("Multi"), std::string::npos) << c.err;
    EXPECT_FALSE(fs::exists(path("l.json")));
  }
  // A recorded target becomes export's default.
  ASSERT_EQ(lsrl({"compile", path("p.json"), "--target", "gated-rnn", "-o", path("r.json")}).code,
            0);
  const Result d = lsrl({"export", path("r.json"), "-o", path("r.npz")});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(json::parse(d.out)["target"], "gated-rnn");
  EXPECT_EQ(json::parse(d.out)["format"], "npz");
}

TEST_F(CompileCli, BadArgumentsWriteNothing) {
  makeProgram("more_ones", {});
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"compile", path("p.json"), "--backend", "float32", "-o",
                                 path("m.json")},
        {"compile", path("p.json"), "--target", "transformer", "-o", path("m.json")},
        {"compile", path("nope.json"), "-o", path("m.json")},
        {"compile", path("p.json")},
        {"export", path("p.json"), "-o", path("m.st")},
        {"export", path("m.json"), "--format", "onnx", "-o", path("m.st")}}) {
    const Result r = lsrl(bad);
    EXPECT_EQ(r.code, 1) << bad[0] << " " << bad[2];
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(path("m.json")));
  EXPECT_FALSE(fs::exists(path("m.st")));
  EXPECT_EQ(lsrl({"compile", "--help"}).code, 0);
  EXPECT_EQ(lsrl({"export", "--help"}).code, 0);
}

TEST_F(CompileCli, CtrlCStopsWithExit130AndNoFiles) {
  // The plain algorithm in exact arithmetic on a long tok2tok: many seconds of compile.
  makeProgram("tok2tok", {"L=6", "conditional=direct"});
  const std::string model = path("m.json"), history = path("h.json"), log = path("err.txt");
  const int status =
      test::runAndInterrupt({"compile", path("p.json"), "--backend", "exact", "--no-optimize",
                             "--history", history, "--progress", "-o", model},
                            std::chrono::milliseconds(2000), log);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string err = readWholeFile(log);
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("lsrl compile: "), std::string::npos) << err;  // progress lines
  for (const char* f : {"m.json", "m.safetensors", "h.json", "h.safetensors"})
    EXPECT_FALSE(fs::exists(path(f))) << f;
  // The history was being written as the compile went: its temporaries are gone too.
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "p.json" || name == "in.json" || name == "err.txt")
        << "left behind: " << name;
  }
}

TEST_F(CompileCli, HistoryLimitIsASizeAndNeedsAHistory) {
  makeProgram("more_ones", {});
  const Result alone =
      lsrl({"compile", path("p.json"), "--history-limit", "1G", "-o", path("m.json")});
  EXPECT_EQ(alone.code, 1);
  EXPECT_NE(alone.err.find("--history-limit needs --history HIST.json"), std::string::npos)
      << alone.err;
  const Result bad = lsrl({"compile", path("p.json"), "--history", path("h.json"),
                           "--history-limit", "lots", "-o", path("m.json")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--history-limit expects a size such as 512M, 8G or 1000000 (bytes), "
                         "got \"lots\""),
            std::string::npos)
      << bad.err;
  const Result small = lsrl({"compile", path("p.json"), "--no-optimize", "--history",
                             path("h.json"), "--history-limit", "1K", "-o", path("m.json")});
  EXPECT_EQ(small.code, 1);
  EXPECT_NE(small.err.find("passed its size limit of 1,024 bytes"), std::string::npos) << small.err;
  EXPECT_FALSE(fs::exists(path("h.json")));
  EXPECT_FALSE(fs::exists(path("m.json")));
  const Result ok = lsrl({"compile", path("p.json"), "--no-optimize", "--history", path("h.json"),
                          "--history-limit", "64MiB", "-o", path("m.json")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(loadHistoryFile(path("h.json")).steps.size(),
            json::parse(ok.out)["steps"].get<size_t>());
}

}  // namespace
}  // namespace lsrl::cli
