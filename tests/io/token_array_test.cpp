// Binary token batches (token_array.h) and array files written value by value
// (array_file.h): shapes, the tensor a safetensors file is read from, decoding blocks of
// sequences, the writer's round trips through the .npy and safetensors readers, and a
// writer that stops early leaving no file.
#include "core/io/token_array.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/io/array_file.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using testing_io::errorOf;
using testing_io::TempDir;

std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

std::vector<double> decoded(const TokenArray& a, size_t first, size_t count) {
  std::vector<double> out(count * a.steps() * a.width());
  a.decode(first, count, out);
  return out;
}

TEST(TokenArray, ReadsThreeAndTwoDimensionalNpy) {
  const TokenArray a =
      tokenArrayFromBytes(npyToBytes({"t", {3, 4, 2}, Tensor::F32, iota(24)}), "in.npy");
  EXPECT_EQ(a.source(), "in.npy");
  EXPECT_EQ(a.dtype(), Tensor::F32);
  EXPECT_EQ(a.sequences(), 3u);
  EXPECT_EQ(a.steps(), 4u);
  EXPECT_EQ(a.width(), 2u);
  const std::vector<double> all = iota(24);
  EXPECT_EQ(decoded(a, 0, 3), all);
  EXPECT_EQ(decoded(a, 1, 1), std::vector<double>(all.begin() + 8, all.begin() + 16));
  EXPECT_NE(errorOf([&] { decoded(a, 2, 2); }), "<no error>");

  const TokenArray one =
      tokenArrayFromBytes(npyToBytes({"t", {5, 1}, Tensor::F64, {0.5, -1, 2, 3, 1e300}}), "x.npy");
  EXPECT_EQ(one.sequences(), 1u);
  EXPECT_EQ(one.steps(), 5u);
  EXPECT_EQ(one.width(), 1u);
  EXPECT_EQ(one.fileShape(), (std::vector<int64_t>{5, 1}));
  EXPECT_EQ(decoded(one, 0, 1), (std::vector<double>{0.5, -1, 2, 3, 1e300}));
}

TEST(TokenArray, TakesTheOnlyTensorOrTheOneNamedTokensOrInput) {
  auto file = [](std::vector<Tensor> tensors) {
    return safetensorsToBytes(TensorFile{std::move(tensors), ""});
  };
  const Tensor x{"x", {1, 2, 1}, Tensor::F64, {4, 5}};
  const Tensor tokens{"tokens", {1, 2, 1}, Tensor::F32, {6, 7}};
  const Tensor input{"input", {2, 1}, Tensor::F64, {8, 9}};
  EXPECT_EQ(decoded(tokenArrayFromBytes(file({x}), "a.safetensors"), 0, 1),
            (std::vector<double>{4, 5}));
  EXPECT_EQ(decoded(tokenArrayFromBytes(file({x, tokens, input}), "a.safetensors"), 0, 1),
            (std::vector<double>{6, 7}));
  EXPECT_EQ(decoded(tokenArrayFromBytes(file({x, input}), "a.safetensors"), 0, 1),
            (std::vector<double>{8, 9}));
  EXPECT_EQ(errorOf([&] {
              tokenArrayFromBytes(file({x, {"y", {1}, Tensor::F32, {1}}}), "a.safetensors");
            }),
            "a.safetensors: 2 tensors ('x', 'y') and none named 'tokens' or 'input'; name the "
            "token batch so");
}

TEST(TokenArray, RefusesWhatNoRunCanRead) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto npyError = [](const Tensor& t) {
    return errorOf([&] { tokenArrayFromBytes(npyToBytes(t), "b.npy"); });
  };
  EXPECT_EQ(npyError({"t", {2, 2, 1}, Tensor::F64, {0, 0, 0, nan}}),
            "b.npy: sequence 1, token 1, feature 0 is NaN: inputs must be finite numbers");
  EXPECT_EQ(npyError({"t", {2, 0, 3}, Tensor::F64, {}}),
            "b.npy: shape [2, 0, 3] holds no token; a run needs at least one sequence of at least "
            "one token, each at least one value wide");
  EXPECT_EQ(npyError({"t", {1, 1, 1, 1}, Tensor::F64, {1}}),
            "b.npy: shape [1, 1, 1, 1] has 4 dimensions; a token batch has 3 (sequences × tokens × "
            "width) or 2 (tokens × width: one sequence)");
  EXPECT_EQ(npyError({"t", {}, Tensor::F64, {1}}),
            "b.npy: shape [] has 0 dimensions; a token batch has 3 (sequences × tokens × width) or "
            "2 (tokens × width: one sequence)");
  EXPECT_EQ(npyError({"t", {1, 1, (1 << 20) + 1}, Tensor::F32, std::vector<double>((1 << 20) + 1)}),
            "b.npy: shape [1, 1, 1048577]: tokens of 1048577 values, more than the limit 1048576");
  EXPECT_EQ(errorOf([] { tokenArrayFromBytes("", "b.json"); }),
            "b.json: a binary token batch ends in .npy or .safetensors");
}

TEST(ArrayFileWriter, WritesWhatTheReadersReadValueByValue) {
  TempDir dir;
  const std::vector<double> values = {1, 0.1, -2.5, 3, 4, 5};
  {
    ArrayFileWriter w(dir.file("a.npy"), {{"ignored", Tensor::F64, {2, 3}}});
    w.append(std::span<const double>(values).first(4));
    const std::vector<float> rest = {4, 5};
    w.append(std::span<const float>(rest));
    w.commit();
  }
  EXPECT_EQ(readWholeFile(dir.file("a.npy")), npyToBytes({"a", {2, 3}, Tensor::F64, values}));

  {
    ArrayFileWriter w(dir.file("b.safetensors"),
                      {{"x", Tensor::F32, {2, 2}}, {"y", Tensor::F64, {2}}}, R"({"k": 1})");
    w.append(std::span<const double>(values));  // across the two arrays
    w.commit();
  }
  const TensorFile expected{{{"x", {2, 2}, Tensor::F32, {1, static_cast<float>(0.1), -2.5, 3}},
                             {"y", {2}, Tensor::F64, {4, 5}}},
                            R"({"k": 1})"};
  EXPECT_EQ(readSafetensors(dir.file("b.safetensors")), expected);
  EXPECT_EQ(readWholeFile(dir.file("b.safetensors")), safetensorsToBytes(expected));
}

TEST(ArrayFileWriter, WritesNothingUnlessEveryValueCame) {
  TempDir dir;
  const std::vector<double> three = {1, 2, 3};
  {
    ArrayFileWriter w(dir.file("short.npy"), {{"a", Tensor::F32, {2, 2}}});
    w.append(std::span<const double>(three));
    EXPECT_EQ(errorOf([&] { w.commit(); }),
              dir.file("short.npy") + ": 1 values short of the arrays' shapes");
  }
  {
    ArrayFileWriter w(dir.file("long.npy"), {{"a", Tensor::F32, {2}}});
    EXPECT_EQ(errorOf([&] { w.append(std::span<const double>(three)); }),
              dir.file("long.npy") + ": more values than the arrays' shapes hold");
  }
  {
    ArrayFileWriter w(dir.file("dropped.safetensors"), {{"a", Tensor::F64, {1}}});
    w.append(std::span<const double>(three).first(1));
  }  // destroyed without commit()
  EXPECT_EQ(errorOf([&] {
              ArrayFileWriter(dir.file("a.txt"), {{"a", Tensor::F64, {1}}});
            }),
            dir.file("a.txt") + ": an array file ends in .npy or .safetensors");
  EXPECT_EQ(
      errorOf([&] {
        ArrayFileWriter(dir.file("two.npy"), {{"a", Tensor::F64, {1}}, {"b", Tensor::F64, {1}}});
      }),
      dir.file("two.npy") + ": a .npy file holds one array and no metadata (write .safetensors)");
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace lsrl
