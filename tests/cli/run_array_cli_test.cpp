// `lsrl run --input IN.npy|IN.safetensors -o OUT.npy|OUT.safetensors` (binary batches) on the
// CPU backends: the outputs equal the JSON path's for the same prompts on every backend,
// malformed input is refused naming the file, the output appears whole or not at all; and
// `lsrl prompt tok2tok --count N`, whose prompt i is the one --seed S+i gives.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/array_run_test_util.h"
#include "cli/cli_test_util.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;

class ArrayRun : public CliFixture {
 protected:
  // tok2tok (L = 3) compiled exactly: m.json.
  void compileTok2tok() {
    ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "-o", path("p.json")}).code, 0);
    ASSERT_EQ(lsrl({"compile", path("p.json"), "--backend", "exact", "-o", path("m.json")}).code,
              0);
  }
  // `count` prompts of 4 entries from `seed`, as name.npy, name.safetensors and name.json.
  void prompts(const std::string& name, int count, int seed) {
    for (const char* ext : {".npy", ".safetensors", ".json"}) {
      const Result r = lsrl({"prompt", "tok2tok", "--random", "4", "--count", std::to_string(count),
                             "--seed", std::to_string(seed), "-o", path(name + ext)});
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  void writeNpy(const std::string& name, const Tensor& t) {
    writeFileAtomically(path(name), npyToBytes(t));
  }
  std::string read(const std::string& name) { return readWholeFile(path(name)); }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
};

TEST_F(ArrayRun, OutputsEqualTheJsonPathsOnEveryCpuBackend) {
  compileTok2tok();
  prompts("in", 6, 3);
  const struct {
    std::vector<std::string> args;
    Tensor::DType dtype;
  } backends[] = {{{}, Tensor::F64},
                  {{"--exact"}, Tensor::F64},
                  {{"--backend", "cpu32"}, Tensor::F32},
                  {{"--backend", "cpu32", "--precision", "fp32"}, Tensor::F32}};
  for (const auto& b : backends) {
    for (const auto& [in, out] : {std::pair{"in.npy", "out.npy"},
                                  {"in.safetensors", "out.safetensors"},
                                  {"in.npy", "out.safetensors"},
                                  {"in.safetensors", "out.npy"}}) {
      SCOPED_TRACE(std::string(in) + " -> " + out + " " + (b.args.empty() ? "" : b.args.back()));
      fs::remove(path(out));
      const Tensor o =
          expectBinaryRunMatchesJson(path("m.json"), path(in), path("in.json"), path(out), b.args);
      EXPECT_EQ(o.shape, (std::vector<int64_t>{6, 27, 1}));
      EXPECT_EQ(o.dtype, b.dtype);
    }
  }
  // The answers: the expected values (the safetensors' "expected") at the last 3 steps.
  const TensorFile prompts = readSafetensors(path("in.safetensors"));
  ASSERT_EQ(prompts.tensors.size(), 2u);
  const Tensor out = readOutputArray(path("out.npy"));
  for (size_t b = 0; b < 6; ++b)
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(out.data[b * 27 + 24 + k], prompts.tensors[1].data[b * 3 + k]) << b << ", " << k;
}

TEST_F(ArrayRun, ExactConvertsEveryFloatExactly) {
  // more_ones (uncompiled) on fractional '<f8' tokens: the exact run reads 0.1 as the double
  // 0.1 (3602879701896397/2^55), as a JSON number 0.1 is read, and rounds each output once.
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
  const std::vector<double> tokens = {1, 0.1, 1.0 / 3, 0, 2.5, -0.75, 1e-300, 7};
  writeNpy("in.npy", {"tokens", {2, 4, 1}, Tensor::F64, tokens});
  nlohmann::json batch = nlohmann::json::array();
  for (size_t s = 0; s < 2; ++s) {
    nlohmann::json rows = nlohmann::json::array();
    for (size_t t = 0; t < 4; ++t) rows.push_back({tokens[s * 4 + t]});
    batch.push_back({{"tokens", rows}});
  }
  write("in.json", nlohmann::json{{"batch", batch}}.dump());
  for (const char* backend : {"exact", "float64"}) {
    SCOPED_TRACE(backend);
    expectBinaryRunMatchesJson(path("mo.json"), path("in.npy"), path("in.json"), path("out.npy"),
                               {"--backend", backend});
  }
}

TEST_F(ArrayRun, ATwoDimensionalArrayIsOneSequence) {
  compileTok2tok();
  ASSERT_EQ(
      lsrl({"prompt", "tok2tok", "--random", "4", "--seed", "5", "-o", path("one.json")}).code, 0);
  std::ifstream f(path("one.json"));
  const nlohmann::json doc = nlohmann::json::parse(f);
  std::vector<double> values;
  for (const auto& row : doc["tokens"]) values.push_back(row[0].get<double>());
  writeNpy("one.npy", {"tokens", {27, 1}, Tensor::F32, values});
  for (const char* backend : {"float64", "cpu32"}) {
    SCOPED_TRACE(backend);
    const Tensor o = expectBinaryRunMatchesJson(path("m.json"), path("one.npy"), path("one.json"),
                                                path("out.npy"), {"--backend", backend});
    EXPECT_EQ(o.shape, (std::vector<int64_t>{27, 1}));
  }
}

TEST_F(ArrayRun, TargetWeightsRunOnBinaryBatches) {
  compileTok2tok();
  prompts("in", 5, 8);
  for (const std::string target : {"lstm", "hawk"}) {
    SCOPED_TRACE(target);
    const std::string weights = path(target + ".safetensors");
    std::vector<std::string> args = {"export",   path("m.json"), "--format", "safetensors",
                                     "--target", target,         "-o",       weights};
    if (target == "hawk") args.insert(args.end(), {"--horizon", "27"});  // its conv window
    const Result e = lsrl(args);
    ASSERT_EQ(e.code, 0) << e.err;
    for (const char* backend : {"float64", "cpu32"})
      expectBinaryRunMatchesJson(weights, path("in.npy"), path("in.json"), path("out.safetensors"),
                                 {"--backend", backend});
    const Result exact =
        lsrl({"run", weights, "--input", path("in.npy"), "-o", path("x.npy"), "--exact"});
    EXPECT_EQ(exact.code, 1);
    EXPECT_NE(exact.err.find("--backend exact needs the compiled model"), std::string::npos)
        << exact.err;
  }
}

// Every malformed input: refused with exit code 1, a message naming the file and what is
// wrong, nothing printed and no output file.
TEST_F(ArrayRun, MalformedInputIsRefusedNamingTheFile) {
  compileTok2tok();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::string good = npyToBytes({"t", {2, 3, 1}, Tensor::F32, {1, 2, 3, 4, 5, 6}});
  auto npyWithHeader = [](const std::string& dict, const std::string& data) {
    std::string header = dict;
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xFF);
    bytes += static_cast<char>(header.size() >> 8);
    return bytes + header + data;
  };
  auto safetensors = [](const std::vector<Tensor>& tensors) {
    return safetensorsToBytes(TensorFile{tensors, ""});
  };
  const std::vector<double> six(6, 1.0);
  const struct {
    std::string name;
    std::string bytes;
    std::string message;
    std::vector<std::string> extra = {};
  } cases[] = {
      {"nan.npy", npyToBytes({"t", {1, 3, 1}, Tensor::F64, {1, nan, 0}}),
       "nan.npy: sequence 0, token 1, feature 0 is NaN: inputs must be finite numbers"},
      {"inf.npy", npyToBytes({"t", {2, 2, 1}, Tensor::F32, {1, 0, 0, -inf}}),
       "inf.npy: sequence 1, token 1, feature 0 is -infinity: inputs must be finite numbers"},
      {"inf.safetensors", safetensors({{"tokens", {1, 2, 1}, Tensor::F64, {inf, 0}}}),
       "inf.safetensors: sequence 0, token 0, feature 0 is +infinity"},
      {"wide.npy", npyToBytes({"t", {1, 3, 2}, Tensor::F64, six}),
       "wide.npy: tokens of 2 values (shape [1, 3, 2]), expected 1 (the input width of "},
      {"rank1.npy", npyToBytes({"t", {6}, Tensor::F32, six}),
       "rank1.npy: shape [6] has 1 dimensions; a token batch has 3 (sequences × tokens × width) "
       "or 2"},
      {"rank4.npy", npyToBytes({"t", {1, 2, 3, 1}, Tensor::F32, six}),
       "rank4.npy: shape [1, 2, 3, 1] has 4 dimensions"},
      {"no_sequence.npy", npyToBytes({"t", {0, 3, 1}, Tensor::F32, {}}),
       "no_sequence.npy: shape [0, 3, 1] holds no token; a run needs at least one sequence"},
      {"no_token.safetensors", safetensors({{"tokens", {2, 0, 1}, Tensor::F32, {}}}),
       "no_token.safetensors: shape [2, 0, 1] holds no token"},
      {"no_width.npy", npyToBytes({"t", {3, 0}, Tensor::F32, {}}),
       "no_width.npy: shape [3, 0] holds no token"},
      {"truncated.npy", good.substr(0, good.size() - 5),
       "truncated.npy: shape [2, 3, 1] of '<f4' needs 24 data bytes, the file has 19"},
      {"cut_header.npy", good.substr(0, 30), "cut_header.npy: .npy header length"},
      // A header claiming 10^14 tokens (800 TB) over 64 bytes: refused before any allocation.
      {"huge.npy",
       npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000000, 1, 1), }",
                     std::string(64, '\0')),
       "huge.npy: shape [100000000000000, 1, 1] of '<f8' needs 800000000000000 data bytes, the "
       "file has 64"},
      {"huger.npy",
       npyWithHeader(
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000), }",
           std::string(64, '\0')),
       "huger.npy: shape [1000000, 1000000, 1000] in F32 exceeds the size limit of 2^50 bytes"},
      {"int.npy",
       npyWithHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1), }",
                     std::string(4, '\0')),
       "int.npy: dtype '<i4' is not supported (LSRL reads '<f8' and '<f4')"},
      {"big_endian.npy",
       npyWithHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1, 1), }",
                     std::string(4, '\0')),
       "big_endian.npy: dtype '>f4' is not supported"},
      {"fortran.npy",
       npyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 1), }",
                     std::string(8, '\0')),
       "fortran.npy: Fortran-order arrays are not supported"},
      {"text.npy", "{\"tokens\": [[1]]}", "text.npy: not a .npy file"},
      {"empty.safetensors", "",
       "safetensors file \"" + path("empty.safetensors") + "\": truncated"},
      {"f16.safetensors",
       [] {
         const std::string h = R"({"t":{"dtype":"F16","shape":[1,1,1],"data_offsets":[0,2]}})";
         std::string b(8, '\0');
         b[0] = static_cast<char>(h.size());
         return b + h + "\0\0";
       }(),
       "f16.safetensors\": tensor 't': dtype 'F16' is not supported (LSRL reads F64 and F32)"},
      {"several.safetensors",
       safetensors({{"a", {1, 1, 1}, Tensor::F32, {1}}, {"b", {1, 1, 1}, Tensor::F32, {1}}}),
       "several.safetensors: 2 tensors ('a', 'b') and none named 'tokens' or 'input'"},
      {"none.safetensors", safetensors({}), "none.safetensors: the file holds no tensor"},
      {"cut.safetensors",
       [&] {
         const std::string b = safetensors({{"tokens", {2, 3, 1}, Tensor::F32, six}});
         return b.substr(0, b.size() - 1);
       }(),
       "cut.safetensors\": tensor 'tokens': data_offsets [0,24] out of range: the data section "
       "has 23 bytes (truncated file?)"},
      // fp32 cannot hold 1e300: refused on cpu32, as the JSON path refuses it.
      {"overflow.npy",
       npyToBytes({"t", {1, 2, 1}, Tensor::F64, {0, 1e300}}),
       "overflow.npy: sequence 0, token 1, feature 0 is 1e+300, which is not a finite fp32 number",
       {"--backend", "cpu32"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    writeFileAtomically(path(c.name), c.bytes);
    const std::string out = path("out.npy");
    std::vector<std::string> args = {"run", path("m.json"), "--input", path(c.name), "-o", out};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.name), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // Nothing but the inputs and the model's files is left behind (no temporary outputs).
  EXPECT_EQ(files().size(), std::size(cases) + 2);
}

TEST_F(ArrayRun, AFailedRunLeavesTheOutputAsItWas) {
  compileTok2tok();
  // 5,000 sequences: the first block (4,096) runs and is written before sequence 4,500's
  // 1e300, which fp32 cannot hold, stops the run.
  std::vector<double> tokens(5000 * 27, 1.0);
  tokens[4500 * 27 + 3] = 1e300;
  writeNpy("in.npy", {"tokens", {5000, 27, 1}, Tensor::F64, tokens});
  write("out.npy", "an earlier result");
  const Result r = lsrl({"run", path("m.json"), "--input", path("in.npy"), "-o", path("out.npy"),
                         "--backend", "cpu32"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("in.npy: sequence 4500, token 3, feature 0 is 1e+300"), std::string::npos)
      << r.err;
  EXPECT_EQ(read("out.npy"), "an earlier result");
  EXPECT_EQ(files(), (std::vector<std::string>{"in.npy", "m.json", "out.npy", "p.json"}));
  // The same batch with the value fixed runs to the end and replaces the file.
  tokens[4500 * 27 + 3] = 2;
  writeNpy("in.npy", {"tokens", {5000, 27, 1}, Tensor::F64, tokens});
  const Result ok = lsrl({"run", path("m.json"), "--input", path("in.npy"), "-o", path("out.npy"),
                          "--backend", "cpu32"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["shape"], nlohmann::json({5000, 27, 1}));
  EXPECT_EQ(readOutputArray(path("out.npy")).data.size(), 5000u * 27);
}

TEST_F(ArrayRun, MisuseIsRefusedWithTheReason) {
  compileTok2tok();
  prompts("in", 2, 0);
  auto expectRefusal = [&](const std::vector<std::string>& extra, const std::string& reason) {
    std::vector<std::string> args = {"run", path("m.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  };
  expectRefusal({"--input", path("in.npy")},
                "in.npy is a binary batch: its outputs are written as an array too, give -o "
                "OUT.npy or -o OUT.safetensors");
  expectRefusal({"--input", path("in.json"), "-o", path("o.npy")},
                "-o writes the outputs of a binary batch (--input IN.npy or IN.safetensors)");
  expectRefusal({"--input", path("in.npy"), "-o", path("o.json")},
                "binary outputs are written to a .npy or .safetensors file");
  expectRefusal({"--input", path("in.npy"), "-o", path("o.npy"), "--trace", path("t.json")},
                "--trace writes JSON traces of JSON inputs");
  expectRefusal({"--input", path("in.npy"), "-o", path("nope/o.npy")}, "nope");
  EXPECT_FALSE(fs::exists(path("o.npy")));
  EXPECT_FALSE(fs::exists(path("o.json")));
}

// --count N: prompt i is `lsrl prompt tok2tok --random K --seed S+i`'s, in every format.
TEST_F(ArrayRun, CountWritesTheSinglePromptsOfConsecutiveSeeds) {
  const int seed = 7;
  for (const char* ext : {".npy", ".safetensors", ".json"}) {
    const Result r = lsrl({"prompt", "tok2tok", "--random", "3", "--count", "5", "-L", "2",
                           "--seed", std::to_string(seed), "-o", path(std::string("b") + ext)});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "wrote " + path(std::string("b") + ext) + " (5 prompts of 14 tokens)\n");
  }
  const Tensor npy = npyFromBytes(read("b.npy"), "tokens", "b.npy");
  EXPECT_EQ(npy.dtype, Tensor::F32);
  EXPECT_EQ(npy.shape, (std::vector<int64_t>{5, 14, 1}));  // T = L·(2K + 1)
  const TensorFile st = readSafetensors(path("b.safetensors"));
  ASSERT_EQ(st.tensors.size(), 2u);
  EXPECT_EQ(st.tensors[0].name, "tokens");
  EXPECT_EQ(st.tensors[0].data, npy.data);
  EXPECT_EQ(st.tensors[1].name, "expected");
  EXPECT_EQ(st.tensors[1].shape, (std::vector<int64_t>{5, 2}));
  const nlohmann::json meta = nlohmann::json::parse(st.metadataJson);
  EXPECT_EQ(meta["seed"], seed);
  EXPECT_EQ(meta["count"], 5);
  EXPECT_EQ(meta["K"], 3);
  std::ifstream jsonFile(path("b.json"));
  const nlohmann::json batch = nlohmann::json::parse(jsonFile);
  ASSERT_EQ(batch["batch"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    const std::string one = path("one" + std::to_string(i) + ".json");
    ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "3", "-L", "2", "--seed",
                    std::to_string(seed + static_cast<int>(i)), "-o", one})
                  .code,
              0);
    std::ifstream f(one);
    const nlohmann::json single = nlohmann::json::parse(f);
    EXPECT_EQ(batch["batch"][i]["tokens"], single["tokens"]);
    EXPECT_EQ(batch["expected"][i], single["expected"]);
    for (size_t t = 0; t < 14; ++t)
      EXPECT_EQ(npy.data[i * 14 + t], single["tokens"][t][0].get<double>()) << t;
    for (size_t k = 0; k < 2; ++k)
      EXPECT_EQ(st.tensors[1].data[i * 2 + k], single["expected"][k].get<double>()) << k;
  }
}

TEST_F(ArrayRun, CountIsDeterministicFromTheSeed) {
  auto draw = [&](const std::string& name, int seed) {
    const Result r = lsrl({"prompt", "tok2tok", "--random", "4", "--count", "300", "--seed",
                           std::to_string(seed), "-o", path(name)});
    EXPECT_EQ(r.code, 0) << r.err;
    return read(name);
  };
  const std::string a = draw("a.npy", 1), b = draw("b.npy", 1), c = draw("c.npy", 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Seed 2's first 299 prompts are seed 1's last 299.
  const Tensor ta = npyFromBytes(a, "a", "a.npy"), tc = npyFromBytes(c, "c", "c.npy");
  EXPECT_TRUE(std::equal(tc.data.begin(), tc.data.end() - 27, ta.data.begin() + 27));
  // Vocabularies beyond 2^24 need F64 to count their tokens exactly.
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "2", "--count", "2", "--vocab", "100000000",
                  "-o", path("wide.npy")})
                .code,
            0);
  EXPECT_EQ(npyFromBytes(read("wide.npy"), "w", "wide.npy").dtype, Tensor::F64);
}

TEST_F(ArrayRun, CountMisuseIsRefused) {
  auto expectRefusal = [&](const std::vector<std::string>& args, const std::string& reason) {
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  };
  expectRefusal({"prompt", "tok2tok", "--count", "3", "-o", path("a.npy")}, "give --random K");
  expectRefusal({"prompt", "tok2tok", "--random", "3", "--count", "3", "--query", "1,2,3", "-o",
                 path("a.npy")},
                "without --dict or --query");
  expectRefusal({"prompt", "tok2tok", "--random", "3", "--count", "0", "-o", path("a.npy")},
                "--count");
  expectRefusal({"prompt", "tok2tok", "--random", "3", "--count", "3", "-o", path("a.txt")},
                "--count writes .npy, .safetensors or .json");
  expectRefusal({"prompt", "tok2tok", "--random", "1001", "--count", "3", "-o", path("a.npy")},
                "K = 1001 unique keys do not fit in V^L = 10^3");
  expectRefusal({"prompt", "vec2vec", "--count", "3", "-o", path("a.npy")},
                "--count writes batches of tok2tok prompts");
  EXPECT_TRUE(files().empty());
}

}  // namespace
}  // namespace lsrl::cli::test
