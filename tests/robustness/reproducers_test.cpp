// The bad-input reproducers of a mutation run over every reader (tests/data/robustness,
// README there), each through the command a user would type: every one must end in a clean,
// located error (exit 1) or a correct answer, never a crash, a hang, a silent wrong answer
// or a half-written file. The large ones are generated here.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;

std::string reproducer(const std::string& name) {
  return std::string(LSRL_TEST_DATA_DIR) + "/robustness/" + name;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first line `lsrl check FILE` prints for an invalid file, without the "FILE: " prefix.
std::string firstProblem(const std::string& file) {
  const Result r = lsrl({"check", file});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const std::string line = r.out.substr(0, r.out.find('\n'));
  return line.substr(line.find(": ") + 2);
}

class Reproducers : public CliFixture {
 protected:
  // more_ones compiled exactly, and its input "1,0,1,1,0".
  std::string moreOnesModel() {
    EXPECT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
    EXPECT_EQ(
        lsrl({"compile", path("mo.json"), "--backend", "exact", "-o", path("mo.model.json")}).code,
        0);
    return path("mo.model.json");
  }
  std::string moreOnesInput() {
    write("mo.in.json", R"({"tokens":[[1],[0],[1],[1],[0]]})");
    return path("mo.in.json");
  }
};

const char* const kInvalidModels[] = {
    "export_b_short.model.json",    "export_bias_short.model.json", "export_A_rows_long.model.json",
    "export_b_long.model.json",     "export_init_long.model.json",  "model_json_s7_124.model.json",
    "model_json_s7_154.model.json", "model_json_s7_219.model.json",
};

TEST_F(Reproducers, ExportRefusesAnInvalidModelWithCheckMessage) {
  for (const char* name : kInvalidModels) {
    const std::string file = reproducer(name);
    const std::string problem = firstProblem(file);
    const Result r = lsrl({"export", file, "-o", path("x.safetensors")});
    EXPECT_EQ(r.code, 1) << name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, problem)) << name << ": " << r.err << " vs " << problem;
    EXPECT_TRUE(contains(r.err, file)) << r.err;  // located by the file
    EXPECT_FALSE(fs::exists(path("x.safetensors"))) << name;
  }
}

TEST_F(Reproducers, EveryBackendRefusesAnInvalidModelWithCheckMessage) {
  const std::string input = moreOnesInput();
  for (const char* name : kInvalidModels) {
    const std::string file = reproducer(name);
    const std::string problem = firstProblem(file);
    for (const char* backend : {"float64", "cpu32", "vulkan"}) {
      const Result r = lsrl({"run", file, "--input", input, "--backend", backend});
      EXPECT_EQ(r.code, 1) << name << " " << backend << ": " << r.out;
      EXPECT_TRUE(contains(r.err, problem)) << name << " " << backend << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

TEST_F(Reproducers, InputsBeyondTheArithmeticAreRefusedOnEveryBackend) {
  const std::string model = moreOnesModel();
  ASSERT_EQ(lsrl({"export", model, "-o", path("mo.npz")}).code, 0);
  ASSERT_EQ(lsrl({"export", model, "-o", path("mo.safetensors")}).code, 0);
  const std::string huge = reproducer("input_str_1e400.json");  // exact 10^400: no double
  for (const std::string& file : {model, path("mo.npz"), path("mo.safetensors")}) {
    for (const char* backend : {"float64", "cpu32", "vulkan"}) {
      const Result r = lsrl({"run", file, "--input", huge, "--backend", backend});
      EXPECT_EQ(r.code, 1) << file << " " << backend << ": " << r.out;
      EXPECT_TRUE(contains(r.err, "token 0, feature 0")) << r.err;
      EXPECT_TRUE(contains(r.err, "must be finite")) << r.err;
      EXPECT_FALSE(contains(r.out, "nan")) << r.out;
    }
  }
  // 10^39 is a double but no fp32: refused by the fp32 backends, run by float64.
  write("big.json", R"({"tokens": [[1], [1e39]]})");
  EXPECT_EQ(lsrl({"run", model, "--input", path("big.json")}).code, 0);
  const Result fp32 = lsrl({"run", model, "--input", path("big.json"), "--backend", "cpu32"});
  EXPECT_EQ(fp32.code, 1);
  EXPECT_TRUE(contains(fp32.err, "sequence 0, token 1, feature 0")) << fp32.err;
  EXPECT_TRUE(contains(fp32.err, "not a finite fp32 number")) << fp32.err;
}

TEST_F(Reproducers, ABatchWiderThanOneDispatchRunsInSlices) {
  const std::string model = moreOnesModel();
  std::string batch = R"({"batch": [)";
  const int sequences = 100000;  // more than the 65535 workgroups of one Vulkan dispatch
  for (int i = 0; i < sequences; ++i) batch += (i ? "," : "") + std::string(R"({"tokens": [[1]]})");
  write("batch.json", batch + "]}");
  for (const char* backend : {"cpu32", "vulkan"}) {
    const Result r = lsrl({"run", model, "--input", path("batch.json"), "--backend", backend});
    if (r.code != 0 && contains(r.err, "Vulkan") && std::string(backend) == "vulkan") continue;
    ASSERT_EQ(r.code, 0) << backend << ": " << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["batch_outputs"].size(), static_cast<size_t>(sequences));
    EXPECT_EQ(doc["batch_outputs"][sequences - 1], nlohmann::json::parse("[[1.0]]"));
  }
}

TEST_F(Reproducers, EveryModelTheCompilerWritesCanBeRun) {
  // Unoptimised, tok2tok L=3 has a 166959x166956 B with 4 M non-zeros: sparse, it runs.
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "-o", path("t.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("t.json"), "--no-optimize", "--backend", "float64", "-o",
                  path("t.model.json")})
                .code,
            0);
  const std::string in = reproducer("tok2tok_L3.in.json");  // query [0, 0, 8] -> [1, 7, 6]
  const Result program = lsrl({"run", path("t.json"), "--input", in});
  const Result model = lsrl({"run", path("t.model.json"), "--input", in});
  ASSERT_EQ(model.code, 0) << model.err;
  EXPECT_EQ(model.out, program.out);
  const auto rows = nlohmann::json::parse(model.out)["outputs"];
  EXPECT_EQ(rows[rows.size() - 1], nlohmann::json::parse("[6.0]")) << model.out;
}

TEST_F(Reproducers, MalformedFilesGetLocatedReadableMessages) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> parts;  // in the message
    std::vector<std::string> absent;
  };
  write("in.json", R"({"tokens":[[1],[0]]})");
  const std::string in = path("in.json");
  const std::vector<Case> cases = {
      {{"info", reproducer("model_op_number_internal_error.model.json")},
       {"nodes[2].op: expected an op name", "got the number"},
       {"json.exception", "internal error"}},
      {{"info", reproducer("model_json_s8_76.model.json")},
       {"model_json_s8_76"},
       {"json.exception"}},
      {{"info", reproducer("model_json_s8_282.model.json")},
       {"model_json_s8_282"},
       {"json.exception"}},
      {{"run", reproducer("st_meta_rawjson_error.safetensors"), "--input", in},
       {"\"lsrl\" metadata", "out of range"},
       {"json.exception"}},
      {{"run", reproducer("st_meta_hidden_1e9_overflow_msg.safetensors"), "--input", in},
       {"expected an integer in 0..1048576"},
       {"-294967296"}},
      {{"run", reproducer("st_hawk_D_2p62_msg.safetensors"), "--input", in},
       {"metadata \"D\" is 4611686018427387904, expected an integer in 0..1048576"},
       {}},
      // The message goes on past the NUL in the value, escaped.
      {{"info", reproducer("graph_value_with_nul.json")}, {"\\x00"}, {}},
      {{"info", reproducer("graph_float_entry_index_msg.json")},
       {"row: expected an integer 0..0 (written without a decimal point), got the number 0.0"},
       {"is outside"}},
      {{"info", reproducer("graph_layout_1e400_hint.json")},
       {"out of range"},
       {"write it as a string such as"}},
  };
  for (const Case& c : cases) {
    const Result r = lsrl(c.args);
    EXPECT_EQ(r.code, 1) << c.args[1] << ": " << r.err;
    for (const std::string& part : c.parts) EXPECT_TRUE(contains(r.err, part)) << r.err;
    for (const std::string& part : c.absent) EXPECT_FALSE(contains(r.err, part)) << r.err;
  }
}

TEST_F(Reproducers, AnEchoedHugeValueMakesABoundedMessage) {
  // A matrix entry of 10^5 nested parentheses (200 KB): the parser's message names it, but
  // the whole message stays short.
  std::ifstream base(reproducer("graph_float_entry_index_msg.json"));
  std::string text((std::istreambuf_iterator<char>(base)), std::istreambuf_iterator<char>());
  const std::string entry = "[[0.0, 0, -1]]";
  text.replace(text.find(entry), entry.size(),
               "[[0, 0, \"" + std::string(100000, '(') + "1" + std::string(100000, ')') + "\"]]");
  write("paren.json", text);
  const Result r = lsrl({"info", path("paren.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_LT(r.err.size(), 300u);
  EXPECT_TRUE(contains(r.err, "nodes[2].A.entries[0][2]")) << r.err.substr(0, 300);
  EXPECT_TRUE(contains(r.err, "(200,001 characters) at position 200")) << r.err.substr(0, 300);
}

TEST_F(Reproducers, AHugeHawkHorizonIsRefusedBeforeFillingMemory) {
  const auto start = std::chrono::steady_clock::now();
  const Result r = lsrl(
      {"export", reproducer("export_target_opts_huge.model.json"), "-o", path("h.safetensors")});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "T = 1000000000")) << r.err;
  EXPECT_TRUE(contains(r.err, "smaller horizon")) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// Runs the real binary with stdout to `out`, in a shell with an address-space limit (KB,
// none for 0); returns {exit status, stderr}.
std::pair<int, std::string> runLimited(const std::string& args, const std::string& out,
                                       long long limitKb, const std::string& errFile) {
  const std::string limit = limitKb > 0 ? "ulimit -v " + std::to_string(limitKb) + "; " : "";
  const std::string command =
      limit + "exec " + std::string(LSRL_CLI_BINARY) + " " + args + " > " + out + " 2> " + errFile;
  const int status = std::system(command.c_str());
  std::ifstream err(errFile);
  std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  expectShortMessageLines(text);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// `compile --no-optimize --history` on tok2tok L=3 (base/t.json) kept every payload in
// memory and ran out of it (3.4 GB under a 4 GB cap, 6.9 GB under 8 GB). The history now
// goes to disk as the compile makes it: under a 1 GB cap it grows until its size limit,
// which stops the compile with a message that says how to go on, and leaves no file.
TEST_F(Reproducers, AnUnoptimisedHistoryGrowsOnDiskNotInMemory) {
  if (kAddressSanitizer) GTEST_SKIP() << "needs an address-space limit";
  ASSERT_EQ(lsrl({"program", "tok2tok", "-o", path("t.json")}).code, 0);
  const auto [code, err] =
      runLimited("compile " + path("t.json") + " --no-optimize --history " + path("H.json") +
                     " --history-limit 512M -o " + path("T.model.json"),
                 "/dev/null", 1000000, path("err.txt"));
  EXPECT_EQ(code, 1) << err;
  // The folder's long name is cut from the quoted path, never the file's.
  EXPECT_TRUE(contains(err, "H.json\"")) << err;
  EXPECT_TRUE(contains(err, " passed its size limit of 536,870,912 bytes at ")) << err;
  EXPECT_TRUE(contains(err,
                       "raise it with --history-limit (e.g. 8G), or compile without "
                       "--no-optimize"))
      << err;
  EXPECT_FALSE(contains(err, "out of memory")) << err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"err.txt", "t.json"}));
}

TEST_F(Reproducers, NpzMembersThatLieAboutTheirSizeAreRefusedBeforeDecompressing) {
  if (kAddressSanitizer) GTEST_SKIP() << "needs an address-space limit";
  const std::string in = moreOnesInput();
  for (const char* bomb : {"npz_bomb_1GiB_member.npz", "npz_bomb_trailing_1GiB.npz"}) {
    const auto [code, err] = runLimited("run " + reproducer(bomb) + " --input " + in, "/dev/null",
                                        600000, path("err.txt"));
    EXPECT_EQ(code, 1) << bomb << ": " << err;
    EXPECT_TRUE(contains(err, "lstm.0.h0")) << err;
    EXPECT_FALSE(contains(err, "out of memory")) << err;
  }
}

TEST_F(Reproducers, WriteErrorsOnStandardOutputFail) {
  const std::string model = moreOnesModel();
  const auto [code, err] = runLimited("info " + model, "/dev/full", 0, path("err.txt"));
  EXPECT_EQ(code, 1) << err;
  EXPECT_TRUE(contains(err, "writing the output failed")) << err;
}

TEST_F(Reproducers, OnlyRegularFilesAreReadOrReplaced) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const Result info = lsrl({"info", path("fifo")});  // used to block in open()
  EXPECT_EQ(info.code, 1);
  EXPECT_TRUE(contains(info.err, "named pipe (FIFO), not a regular file")) << info.err;
  const Result zero = lsrl({"info", "/dev/zero"});  // used to read until out of memory
  EXPECT_EQ(zero.code, 1);
  EXPECT_TRUE(contains(zero.err, "character device")) << zero.err;

  // -o on a FIFO is refused and leaves it a FIFO; on a symbolic link, writes through it.
  const Result toFifo = lsrl({"program", "more_ones", "-o", path("fifo")});
  EXPECT_EQ(toFifo.code, 1);
  EXPECT_TRUE(contains(toFifo.err, "lsrl only replaces regular files")) << toFifo.err;
  struct stat st {};
  ASSERT_EQ(::lstat(path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  write("real.json", "old");
  fs::create_symlink(path("real.json"), path("link.json"));
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("link.json")}).code, 0);
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(lsrl({"check", path("real.json")}).code, 0);

  // A model whose sidecar is a FIFO: refused, not blocked.
  ASSERT_EQ(lsrl({"program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", path("v.json")}).code,
            0);
  ASSERT_EQ(lsrl({"compile", path("v.json"), "--no-optimize", "-o", path("t.model.json")}).code, 0);
  const auto doc = nlohmann::json::parse(readWholeFile(path("t.model.json")));
  const std::string sidecar = path(doc["metadata"]["sidecar"]["file"].get<std::string>());
  fs::remove(sidecar);
  ASSERT_EQ(::mkfifo(sidecar.c_str(), 0600), 0);
  const Result model = lsrl({"info", path("t.model.json")});
  EXPECT_EQ(model.code, 1);
  EXPECT_TRUE(contains(model.err, "named pipe")) << model.err;
}

TEST_F(Reproducers, ASafetensorsHeaderOfManyTensorsParsesInLinearTime) {
  // 200k empty tensors took 52 s when every header insert searched the ones before it.
  TensorFile file;
  for (int i = 0; i < 200000; ++i) {
    Tensor t;
    t.name = "t" + std::to_string(i);
    t.shape = {0};
    file.tensors.push_back(std::move(t));
  }
  const std::string bytes = safetensorsToBytes(file);
  const auto start = std::chrono::steady_clock::now();
  const TensorFile back = safetensorsFromBytes(bytes, "many.safetensors");
  EXPECT_EQ(back.tensors.size(), file.tensors.size());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace lsrl::cli::test
