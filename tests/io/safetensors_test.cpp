// safetensors export (docs/weights-format.md): round trips, layout, validation errors.
#include "core/io/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "io/io_test_util.h"
#include "io/weights_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::loadLE64;
using testing_io::sampleTensorFile;
using testing_io::storeLE64;
using testing_io::TempDir;

// A file from a hand-written header and data section (the header is padded to 8).
std::string handMade(std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  storeLE64(out, 0, header.size());
  return out + header + data;
}

std::string readError(std::string_view bytes) {
  return errorOf([&] { safetensorsFromBytes(bytes, "model.safetensors"); });
}

TEST(Safetensors, RoundTripThroughAFile) {
  TempDir dir;
  const TensorFile f = sampleTensorFile();
  writeSafetensors(dir.file("model.safetensors"), f);
  EXPECT_EQ(readSafetensors(dir.file("model.safetensors")), f);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});  // no temp left
}

TEST(Safetensors, RoundTripSpecialValuesAndNoMetadata) {
  TensorFile f;
  f.tensors.push_back({"x",
                       {5},
                       Tensor::F64,
                       {std::numeric_limits<double>::infinity(), -0.0,
                        std::numeric_limits<double>::quiet_NaN(), 1e-310, -1e308}});
  f.tensors.push_back({"y", {2}, Tensor::F32, {-std::numeric_limits<double>::infinity(), 3.0}});
  const TensorFile g = safetensorsFromBytes(safetensorsToBytes(f));
  ASSERT_EQ(g.tensors.size(), 2u);
  EXPECT_TRUE(g.metadataJson.empty());
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(g.tensors[t].data.size(), f.tensors[t].data.size());
    for (size_t i = 0; i < f.tensors[t].data.size(); ++i) {
      const double a = f.tensors[t].data[i], b = g.tensors[t].data[i];
      EXPECT_TRUE((std::isnan(a) && std::isnan(b)) ||
                  (a == b && std::signbit(a) == std::signbit(b)))
          << t << "," << i;
    }
  }
}

TEST(Safetensors, F32RoundsToFloat) {
  TensorFile f;
  f.tensors.push_back({"w", {2}, Tensor::F32, {0.1, 1.0 / 3.0}});
  const TensorFile g = safetensorsFromBytes(safetensorsToBytes(f));
  EXPECT_EQ(g.tensors[0].data,
            (std::vector<double>{static_cast<float>(0.1), static_cast<float>(1.0 / 3.0)}));
  EXPECT_EQ(g.tensors[0].dtype, Tensor::F32);
}

TEST(Safetensors, Layout) {
  const TensorFile f = sampleTensorFile();
  const std::string bytes = safetensorsToBytes(f);
  const uint64_t n = loadLE64(bytes, 0);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_LE(8 + n, bytes.size());
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.front(), '{');
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));  // padded with spaces only

  const json h = json::parse(header);
  EXPECT_EQ(h["__metadata__"], (json{{"lsrl", f.metadataJson}}));
  EXPECT_EQ(h["layers.0.A"],
            (json{{"dtype", "F64"}, {"shape", {2, 3}}, {"data_offsets", {0, 48}}}));
  EXPECT_EQ(h["layers.0.b"], (json{{"dtype", "F32"}, {"shape", {3}}, {"data_offsets", {48, 60}}}));
  EXPECT_EQ(h["scale"],
            (json{{"dtype", "F64"}, {"shape", json::array()}, {"data_offsets", {60, 68}}}));
  EXPECT_EQ(h["empty"], (json{{"dtype", "F32"}, {"shape", {0, 4}}, {"data_offsets", {68, 68}}}));
  EXPECT_EQ(h["cube"], (json{{"dtype", "F64"}, {"shape", {2, 1, 2}}, {"data_offsets", {68, 100}}}));
  EXPECT_EQ(bytes.size(), 8 + n + 100);
  // Little-endian: 1.0 = 0x3FF0000000000000, F32 0.5 = 0x3F000000.
  EXPECT_EQ(bytes.substr(8 + n, 8), std::string("\0\0\0\0\0\0\xF0\x3F", 8));
  EXPECT_EQ(bytes.substr(8 + n + 48, 4), std::string("\0\0\0\x3F", 4));
  // The header lists the tensors in the order given.
  EXPECT_LT(header.find("\"layers.0.A\""), header.find("\"layers.0.b\""));
  EXPECT_LT(header.find("\"scale\""), header.find("\"empty\""));
}

TEST(Safetensors, ReadsHandMadeFileInOffsetOrder) {
  // Header order differs from data order; reading follows the data.
  std::string data(12, '\0');
  data[3] = '\x3F';   // b = F32 0.5 at [0, 4]
  data[11] = '\x40';  // a = F64 2.0 at [4, 12]
  const TensorFile f = safetensorsFromBytes(
      handMade(R"({"a": {"dtype": "F64", "shape": [1], "data_offsets": [4, 12]},
                   "b": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]},
                   "__metadata__": {"format": "pt"}})",
               data));
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors[0], (Tensor{"b", {}, Tensor::F32, {0.5}}));
  EXPECT_EQ(f.tensors[1], (Tensor{"a", {1}, Tensor::F64, {2.0}}));
  EXPECT_TRUE(f.metadataJson.empty());
}

TEST(Safetensors, TruncatedFiles) {
  const std::string bytes = safetensorsToBytes(sampleTensorFile());
  EXPECT_CONTAINS(readError(bytes.substr(0, 5)), "model.safetensors");
  EXPECT_CONTAINS(readError(bytes.substr(0, 5)), "truncated: 5 bytes");
  const uint64_t n = loadLE64(bytes, 0);
  EXPECT_CONTAINS(readError(bytes.substr(0, 8 + n / 2)), "exceeds the");
  const std::string cut = readError(bytes.substr(0, bytes.size() - 1));
  EXPECT_CONTAINS(cut, "safetensors file \"model.safetensors\"");
  EXPECT_CONTAINS(cut, "tensor 'cube'");
  EXPECT_CONTAINS(cut, "out of range");
  EXPECT_CONTAINS(readError(bytes + "xx"), "2 bytes after the last tensor's data");
}

TEST(Safetensors, BadHeaderLength) {
  std::string bytes = safetensorsToBytes(sampleTensorFile());
  storeLE64(bytes, 0, uint64_t{1} << 62);
  EXPECT_CONTAINS(readError(bytes), "header length 4611686018427387904 exceeds");
  storeLE64(bytes, 0, 3);
  EXPECT_CONTAINS(readError(bytes), "model.safetensors\" header");  // "{\"_" is not JSON
  storeLE64(bytes, 0, 0);
  EXPECT_CONTAINS(readError(bytes), "does not start with '{'");
  EXPECT_CONTAINS(readError(handMade("[1, 2]", "")), "does not start with '{'");
  EXPECT_CONTAINS(readError(handMade("{\"a\": ", "")), "header");
}

TEST(Safetensors, OffsetErrors) {
  const std::string data(24, '\0');
  auto two = [&](const std::string& a, const std::string& b) {
    return readError(handMade(R"({"a": {"dtype": "F64", "shape": [2], "data_offsets": )" + a +
                                  R"(}, "b": {"dtype": "F64", "shape": [1], "data_offsets": )" + b +
                                  "}}",
                              data));
  };
  EXPECT_EQ(two("[0, 16]", "[16, 24]"), "<no error>");
  const std::string overlap = two("[0, 16]", "[8, 16]");
  EXPECT_CONTAINS(overlap, "model.safetensors");
  EXPECT_CONTAINS(overlap, "tensors 'a' and 'b' overlap");
  EXPECT_CONTAINS(two("[8, 24]", "[0, 8]"), "<no error>");
  // In data order (begin, then end): b [0, 8] comes first.
  EXPECT_CONTAINS(two("[0, 16]", "[0, 8]"), "tensors 'b' and 'a' overlap");
  EXPECT_CONTAINS(two("[0, 16]", "[24, 32]"), "tensor 'b': data_offsets [24,32] out of range");
  EXPECT_CONTAINS(two("[0, 16]", "[16, 20]"), "span 4 bytes but shape [1] in F64 needs 8");
  EXPECT_CONTAINS(two("[0, 8]", "[16, 24]"), "tensor 'a': data_offsets [0,8] span 8");
  EXPECT_CONTAINS(two("[16, 0]", "[16, 24]"), "ends before it begins");
  EXPECT_CONTAINS(two("[0, -16]", "[16, 24]"), "not a pair of non-negative integers");
  EXPECT_CONTAINS(two("[0, 16, 3]", "[16, 24]"), "not a pair");
  EXPECT_CONTAINS(two("[0, 16.0]", "[16, 24]"), "not a pair");
  EXPECT_CONTAINS(two("[0, 18446744073709551615]", "[16, 24]"), "out of range");
  const std::string gap = readError(handMade(
      R"({"a": {"dtype": "F64", "shape": [1], "data_offsets": [8, 16]}})", std::string(16, '\0')));
  EXPECT_CONTAINS(gap, "a gap of 8 bytes before tensor 'a'");
}

TEST(Safetensors, DtypeAndShapeErrors) {
  auto one = [](const std::string& dtype, const std::string& shape) {
    return readError(handMade(
        R"({"w": {"dtype": )" + dtype + R"(, "shape": )" + shape + R"(, "data_offsets": [0, 8]}})",
        std::string(8, '\0')));
  };
  EXPECT_EQ(one("\"F64\"", "[1]"), "<no error>");
  EXPECT_EQ(one("\"F32\"", "[2, 1]"), "<no error>");
  EXPECT_CONTAINS(one("\"BF16\"", "[4]"), "tensor 'w': dtype 'BF16' is not supported");
  EXPECT_CONTAINS(one("\"Q7\"", "[1]"), "tensor 'w': unknown dtype 'Q7'");
  EXPECT_CONTAINS(one("64", "[1]"), "dtype is not a string");
  EXPECT_CONTAINS(one("\"F64\"", "[-1]"), "not a list of non-negative integers");
  EXPECT_CONTAINS(one("\"F64\"", "3"), "shape is not an array");
  EXPECT_CONTAINS(one("\"F64\"", "[4294967296, 4294967296]"), "exceeds the size limit");
  EXPECT_CONTAINS(one("\"F64\"", "[2]"), "needs 16");
  EXPECT_CONTAINS(readError(handMade(R"({"w": {"dtype": "F64", "shape": [1]}})", "")),
                  "tensor 'w' has no \"data_offsets\"");
  EXPECT_CONTAINS(readError(handMade(R"({"w": 1})", "")), "tensor 'w' is not described");
  EXPECT_CONTAINS(readError(handMade(R"({"__metadata__": {"lsrl": 1}})", "")),
                  "__metadata__ entry 'lsrl' is not a string");
  EXPECT_CONTAINS(readError(handMade(R"({"w": 1, "w": 2})", "")), "header");
}

TEST(Safetensors, WriteValidation) {
  auto writeError = [](TensorFile f) { return errorOf([&] { safetensorsToBytes(f); }); };
  TensorFile f;
  f.tensors.push_back({"w", {2, 2}, Tensor::F64, {1, 2, 3}});
  EXPECT_CONTAINS(writeError(f), "tensor 'w': shape [2, 2] has 4 elements but the data has 3");
  f.tensors[0] = {"w", {-1}, Tensor::F64, {}};
  EXPECT_CONTAINS(writeError(f), "tensor 'w': negative dimension");
  f.tensors[0] = {"w", {1}, Tensor::F32, {1e39}};
  EXPECT_CONTAINS(writeError(f), "tensor 'w': element 0");
  f.tensors[0] = {"w", {1}, Tensor::F64, {1}};
  f.tensors.push_back(f.tensors[0]);
  EXPECT_CONTAINS(writeError(f), "tensor 'w': the name is used twice");
  f.tensors.pop_back();
  f.tensors.push_back({"__metadata__", {}, Tensor::F64, {1}});
  EXPECT_CONTAINS(writeError(f), "reserved");
  f.tensors.back().name = "";
  EXPECT_CONTAINS(writeError(f), "empty name");
  f.tensors.pop_back();
  f.metadataJson = "{not json";
  EXPECT_CONTAINS(writeError(f), "metadata");
  f.metadataJson = "{}";
  EXPECT_EQ(writeError(f), "<no error>");
}

TEST(Safetensors, WriteFailureNamesThePathAndKeepsTheOldFile) {
  TempDir dir;
  const std::string path = dir.file("m.safetensors");
  writeFileAtomically(path, "old");
  TensorFile bad;
  bad.tensors.push_back({"w", {2}, Tensor::F64, {1}});
  EXPECT_CONTAINS(errorOf([&] { writeSafetensors(path, bad); }), path);
  EXPECT_EQ(readWholeFile(path), "old");
  EXPECT_CONTAINS(
      errorOf([&] { writeSafetensors(dir.file("no/such/dir.st"), sampleTensorFile()); }),
      "no/such/dir.st");
  EXPECT_CONTAINS(errorOf([&] { readSafetensors(dir.file("missing.safetensors")); }),
                  "missing.safetensors");
}

}  // namespace
}  // namespace lsrl
