// Limits say so. Under a file-size limit (`ulimit -f`) SIGXFSZ killed `lsrl` mid-write
// (exit 153, no message, a *.tmp-PID-* file left): the write now fails with "File too
// large", exit 1, the old file intact and no temporary file left, for a whole-file write
// and a streamed one (a compile's sidecar). Out of memory names what was being built
// instead of a bare "out of memory" (or an abort while unwinding).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/binary_run.h"
#include "cli/cli_test_util.h"
#include "core/util/quote_input.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;

class Limits : public CliFixture {
 protected:
  std::string read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The temporary files of killed or failed writes left in the folder.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.find(".tmp-") != std::string::npos) left.push_back(name);
    }
    return left;
  }
  // A run as after `ulimit -f` of `kib` KiB.
  BinaryRun underFileSizeLimit(const std::vector<std::string>& args, rlim_t kib) {
    BinaryRunOptions options;
    options.resource = RLIMIT_FSIZE;
    options.limit = kib << 10;
    return runBinary(args, options, dir_.string());
  }
};

TEST_F(Limits, AWritePastTheFileSizeLimitFailsWithAMessageAndLeavesNothing) {
  // A 20 KB program replaced by tok2tok's 150 KB under a 60 KiB limit.
  ASSERT_EQ(
      lsrl({"program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", path("old.json")}).code, 0);
  const std::string old = read("old.json");
  ASSERT_LT(old.size(), size_t{60} << 10);
  const BinaryRun r = underFileSizeLimit({"program", "tok2tok", "-o", path("old.json")}, 60);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const std::string old_json = path("old.json");  // quoted keeping its end, the file name
  EXPECT_EQ(r.err.rfind("lsrl program: error: cannot save " + quotePath(old_json), 0), 0u) << r.err;
  EXPECT_NE(r.err.find("failed: File too large"), std::string::npos) << r.err;
  EXPECT_EQ(read("old.json"), old) << "the old file is kept";
  EXPECT_EQ(temporaries(), std::vector<std::string>{});
}

TEST_F(Limits, AStreamedSidecarPastTheLimitFailsAndLeavesNoFile) {
  ASSERT_EQ(lsrl({"program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", path("v.json")}).code,
            0);
  // Unoptimised, its model is a 12 KB JSON beside a 56 KB sidecar, written piece by piece.
  const BinaryRun r = underFileSizeLimit(
      {"compile", path("v.json"), "--no-optimize", "-o", path("v.model.json")}, 16);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.err.rfind("lsrl compile: error: cannot save ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("failed: File too large"), std::string::npos) << r.err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"v.json"}) << "no model, sidecar or temporary file";
}

TEST_F(Limits, OutOfMemoryNamesWhatWasBeingBuilt) {
  if (kAddressSanitizer) GTEST_SKIP() << "needs an address-space limit";
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("mo.json"), "-o", path("mo.model.json")}).code, 0);
  {
    // 3,000,000 one-wide tokens: 15 MB of text, far more once parsed and run in a batch.
    std::ofstream big(path("big.json"));
    big << "{\"tokens\": [[1]";
    for (int t = 1; t < 3000000; ++t) big << ",[1]";
    big << "]}";
  }
  // Two limits: one that runs out while the input is read, one (where the input fits)
  // that may run out while the batch runs. Either way the message says what it was.
  for (const rlim_t mib : {300, 900}) {
    SCOPED_TRACE(std::to_string(mib) + " MiB");
    BinaryRunOptions options;
    options.resource = RLIMIT_AS;
    options.limit = mib << 20;
    options.env["MALLOC_ARENA_MAX"] = "2";  // the limit measures memory, not arenas
    const BinaryRun r =
        runBinary({"run", path("mo.model.json"), "--input", path("big.json"), "--backend", "cpu32"},
                  options, dir_.string());
    EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << ": " << r.err;
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const bool reading =
        r.err.find("out of memory while reading the input file \"") != std::string::npos &&
        r.err.find("/big.json\"") != std::string::npos;
    const bool running =
        r.err.find("out of memory while running 3,000,000 tokens in 1 sequence on cpu32") !=
        std::string::npos;
    EXPECT_TRUE(reading || running) << r.err;
    if (mib == 300) {
      EXPECT_TRUE(reading) << r.err;
    }
    expectShortMessageLines(r.err);
  }
}

}  // namespace
}  // namespace lsrl::cli::test
