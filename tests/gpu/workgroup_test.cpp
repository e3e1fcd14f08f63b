// Workgroup sizes have one source, core/gpu/workgroups.cpp's table, passed to every shader as
// specialization constant 0 (docs/vulkan.md, "Workgroup sizes"). These tests fail when a
// shader and the host could disagree: a shader without a row, a shader whose SPIR-V size
// is a literal or another constant, a pipeline that reports a size other than the one it
// was created with, or a kernel that goes wrong at a size other than the table's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/float_batch/matvec.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/real.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/shaders.h"
#include "core/gpu/workgroups.h"
#include "gpu/float_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using testing_vulkan::randomFloats;

// The embedded shaders of a table row: the fp32 one and its `_f64` twin when built.
std::vector<std::string> compiledVariants(std::string_view base) {
  std::vector<std::string> names{std::string(base)};
  try {
    shaderCode(std::string(base) + "_f64");
    names.push_back(std::string(base) + "_f64");
  } catch (const Error&) {
  }
  return names;
}

TEST(Workgroups, EveryShaderHasOneRow) {
  std::set<std::string> sources, rows;
  for (const auto& entry : std::filesystem::directory_iterator(LSRL_SOURCE_DIR "/shaders"))
    if (entry.path().extension() == ".comp") sources.insert(entry.path().stem().string());
  ASSERT_FALSE(sources.empty());
  for (const ShaderWorkgroup& row : shaderWorkgroups()) {
    EXPECT_TRUE(rows.insert(std::string(row.shader)).second) << row.shader << " has two rows";
    EXPECT_NO_THROW(shaderCode(row.shader)) << row.shader << " is not compiled";
    EXPECT_GE(row.size.invocations(), 1u) << row.shader;
  }
  EXPECT_EQ(rows, sources) << "core/gpu/workgroups.cpp's table and shaders/*.comp differ";
  EXPECT_EQ(shaderWorkgroup("relu_f64"), shaderWorkgroup("relu")) << "twins share a row";
  EXPECT_THROW(shaderWorkgroup("no_such_shader"), Error);
}

// Every compiled shader (fp64 twins too) takes its x size from constant 0, and so
// specialized declares exactly the table's size (dense_matvec's y is constant 0 as well).
TEST(Workgroups, EveryShaderTakesItsSizeFromConstantZero) {
  for (const ShaderWorkgroup& row : shaderWorkgroups()) {
    for (const std::string& name : compiledVariants(row.shader)) {
      const auto code = shaderCode(name);
      const auto dims = spirvWorkgroup(code);
      EXPECT_TRUE(dims[0].specialized && dims[0].specId == 0)
          << name << ": local_size_x is not `local_size_x_id = 0`";
      EXPECT_EQ(specializedWorkgroup(code, row.size.x, {}), row.size)
          << name << " at the table's " << workgroupText(row.size);
      // Another x follows through (y as well where it is constant 0).
      const WorkgroupSize other = specializedWorkgroup(code, 2 * row.size.x, {});
      EXPECT_EQ(other.x, 2 * row.size.x) << name;
      EXPECT_EQ(other.z, 1u) << name;
    }
  }
}

TEST(Workgroups, ReadsLiteralSizesToo) {
  // A module of only a header and `OpExecutionMode %1 LocalSize 8 4 1` (words: count << 16
  // | opcode 16, entry, mode 17, x, y, z).
  const std::vector<uint32_t> literal = {0x07230203, 0x00010300, 0, 10, 0, (6u << 16) | 16u,
                                         1,          17,         8, 4,  1};
  const auto dims = spirvWorkgroup(literal);
  EXPECT_FALSE(dims[0].specialized);
  EXPECT_EQ(specializedWorkgroup(literal, 256, {}), (WorkgroupSize{8, 4, 1}));
  EXPECT_THROW(spirvWorkgroup(std::vector<uint32_t>{1, 2, 3}), Error);
}

// Creating a pipeline: it reports the size it was asked for, the size is part of the
// cache's key, and a shader whose size is not constant 0 is refused.
TEST(VulkanWorkgroups, PipelinesReportTheirSizeAndAreKeyedByIt) {
  LSRL_VULKAN_DEVICE(dev);
  const Kernel& table = shaderKernel(dev, "relu", 2, sizeof(uint32_t));
  EXPECT_EQ(table.workgroup(), shaderWorkgroup("relu"));
  EXPECT_EQ(&table, &shaderKernel(dev, "relu", shaderWorkgroup("relu"), 2, sizeof(uint32_t)))
      << "the table's size is the same pipeline";
  const Kernel& small = shaderKernel(dev, "relu", {32}, 2, sizeof(uint32_t));
  EXPECT_NE(&small, &table) << "another size is another pipeline";
  EXPECT_EQ(small.workgroup(), (WorkgroupSize{32}));
  EXPECT_EQ(realKernel(dev, "relu", Real::F32, 2, sizeof(uint32_t)).workgroup(),
            shaderWorkgroup("relu"));
  const Kernel& dense = shaderKernel(dev, "dense_matvec", 4, 4 * sizeof(uint32_t));
  EXPECT_EQ(dense.workgroup(), (WorkgroupSize{16, 16}));

  // dense_matvec's tiles are square: y cannot differ from x.
  EXPECT_THROW(shaderKernel(dev, "dense_matvec", {16, 8}, 4, 4 * sizeof(uint32_t)), Error);
  // Past the device's limit.
  const uint32_t tooMany = dev.info().maxWorkgroupSize + 1;
  EXPECT_THROW(shaderKernel(dev, "relu", {tooMany}, 2, sizeof(uint32_t)), Error);
  // copy.comp with its size moved from constant 0 to constant 9 (its SpecId decoration:
  // OpDecorate = 4 words, opcode 71, decoration SpecId = 1) runs workgroups of the
  // default, 1, whatever the host asks: refused before any pipeline is made.
  const auto code = shaderCode("copy");
  std::vector<uint32_t> moved(code.begin(), code.end());
  bool patched = false;
  for (size_t at = 5; at < moved.size(); at += moved[at] >> 16)
    if (moved[at] == ((4u << 16) | 71u) && moved[at + 2] == 1 && moved[at + 3] == 0) {
      moved[at + 3] = 9;
      patched = true;
    }
  ASSERT_TRUE(patched);
  try {
    dev.kernel("copy_at_constant_9", moved, 2, sizeof(uint32_t), shaderWorkgroup("copy"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("workgroups of 1, the host asked for 256"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// The sizes a device allows among `sizes`.
std::vector<uint32_t> allowed(const Device& dev, std::vector<uint32_t> sizes) {
  std::erase_if(sizes, [&](uint32_t s) { return s > dev.info().maxWorkgroupSize; });
  return sizes;
}

// ReLU (grid-stride, one invocation per item) at sizes other than the table's, the group
// count taken from the pipeline: every size gives the same values.
TEST(VulkanWorkgroups, ReluRunsAtOtherSizes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(11);
  const uint32_t n = 100003;
  const std::vector<float> in = randomFloats(rng, n, -2.0f, 2.0f);
  std::vector<float> want(n);
  std::transform(in.begin(), in.end(), want.begin(), [](float x) { return std::max(x, 0.0f); });
  auto x = uploadFloats(dev, in);
  auto y = dev.buffer(n * sizeof(float));
  for (uint32_t size : allowed(dev, {1, 32, 64, 256, 1024})) {
    const Kernel& k = shaderKernel(dev, "relu", {size}, 2, sizeof n);
    ASSERT_EQ(k.workgroup().x, size);
    Batch batch = dev.batch();
    batch.dispatch(k, {x.get(), y.get()}, &n, sizeof n, cappedGroups(n, k.workgroup().x));
    dev.run(batch);
    EXPECT_EQ(dev.download<float>(*y, n), want) << "relu at " << size;
  }
  // The fp64 twin (compiled with -DLSRL_F64) takes the same constant.
  if (dev.info().shaderFloat64) {
    const std::vector<double> in64(in.begin(), in.end()), want64(want.begin(), want.end());
    auto x64 = uploadFloats(dev, in64);
    auto y64 = dev.buffer(n * sizeof(double));
    for (uint32_t size : allowed(dev, {32, 512})) {
      const Kernel& k = realKernel(dev, "relu", Real::F64, {size}, 2, sizeof n);
      Batch batch = dev.batch();
      batch.dispatch(k, {x64.get(), y64.get()}, &n, sizeof n, cappedGroups(n, k.workgroup().x));
      dev.run(batch);
      EXPECT_EQ(dev.download<double>(*y64, n), want64) << "relu_f64 at " << size;
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// dense_matvec's 2D tiles and shared arrays are sized by constant 0: every tile size sums
// each output in the same order, so all agree bit for bit with the CPU twin.
TEST(VulkanWorkgroups, DenseMatvecRunsAtOtherTileSizes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(12);
  const int m = 37, n = 53;
  const uint32_t rows = 29;
  const float_batch::DenseMatrix A{m, n, randomFloats(rng, size_t(m) * n)};
  const std::vector<float> bias = randomFloats(rng, m), X = randomFloats(rng, size_t(rows) * n);
  const std::vector<float> want = float_batch::denseMatvec(A, bias, X, rows);
  const DeviceDense d = uploadDense(dev, A, bias);
  auto xBuf = uploadFloats(dev, X);
  auto yBuf = dev.buffer(size_t(rows) * m * sizeof(float));
  const uint32_t push[4] = {rows, uint32_t(m), uint32_t(n), 1};
  for (uint32_t tile : allowed(dev, {4, 8, 16, 32})) {
    if (tile * tile > dev.info().maxWorkgroupSize) continue;
    const Kernel& k = shaderKernel(dev, "dense_matvec", {tile, tile}, 4, sizeof push);
    Batch batch = dev.batch();
    batch.dispatch(k, {d.val.get(), d.bias.get(), xBuf.get(), yBuf.get()}, push, sizeof push,
                   cappedGroups(size_t(m), k.workgroup().x), cappedGroups(rows, k.workgroup().y));
    dev.run(batch);
    EXPECT_EQ(dev.download<float>(*yBuf, want.size()), want) << "dense_matvec at tile " << tile;
  }
  EXPECT_EQ(runDenseMatvec(dev, d, X, rows), want) << "the wrapper, at the table's tile";
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// looped_norm reduces a row in a shared array of LOCAL (constant 0) floats: were LOCAL not
// the workgroup's size, rows would lose channels or overrun the array.
TEST(VulkanWorkgroups, NormReductionRunsAtOtherSizes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(13);
  const uint32_t rows = 5, d = 300;
  const std::vector<float> src = randomFloats(rng, size_t(rows) * d, -3.0f, 3.0f);
  const float eps = 1e-6f;
  std::vector<double> want(src.size());
  for (uint32_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (uint32_t i = 0; i < d; ++i) ss += double(src[r * d + i]) * src[r * d + i];
    const double scale = 1 / std::sqrt(ss / d + eps);
    for (uint32_t i = 0; i < d; ++i) want[r * d + i] = src[r * d + i] * scale;
  }
  auto srcBuf = uploadFloats(dev, src);
  auto unused = dev.buffer(sizeof(float));
  auto zBuf = dev.buffer(src.size() * sizeof(float));
  struct NormPush {  // shaders/looped_norm.comp's push constants
    uint32_t rows, d, srcOffset, alphaOffset, flags;
    float eps;
  } push{rows, d, 0, 0, /*RMS*/ 2, eps};
  for (uint32_t size : allowed(dev, {2, 32, 64, 128, 512})) {
    const Kernel& k = shaderKernel(dev, "looped_norm", {size}, 5, sizeof push);
    Batch batch = dev.batch();
    batch.dispatch(k, {srcBuf.get(), unused.get(), unused.get(), unused.get(), zBuf.get()}, &push,
                   sizeof push, rows);  // one workgroup per row
    dev.run(batch);
    const std::vector<float> z = dev.download<float>(*zBuf, src.size());
    double worst = 0;
    for (size_t i = 0; i < z.size(); ++i)
      worst = std::max(worst, std::abs(z[i] - want[i]) / std::max(1.0, std::abs(want[i])));
    EXPECT_LT(worst, 1e-5) << "looped_norm at " << size;
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
