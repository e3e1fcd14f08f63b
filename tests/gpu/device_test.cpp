// The Vulkan device layer on lavapipe: device choice, buffers, a kernel round trip with
// timestamps and no validation errors, clear errors for misuse, and the fallback when
// there is no driver at all (a fresh process: the loader is opened once per process).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/gpu/shaders.h"
#include "core/gpu/workgroups.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

TEST(VulkanDevice, ListsDevicesAndChoosesOne) {
  LSRL_VULKAN_DEVICE(dev);
  const auto devices = listDevices();
  ASSERT_FALSE(devices.empty());
  const DeviceInfo& info = dev.info();
  std::printf("device %d: %s (%s), subgroup %u (%u..%u), arithmetic %d, timestamps %g ns\n",
              info.index, info.name.c_str(), info.type.c_str(), info.subgroupSize,
              info.minSubgroupSize, info.maxSubgroupSize, info.subgroupArithmetic,
              info.timestampPeriodNs);
  EXPECT_GT(info.subgroupSize, 0u);
  EXPECT_GE(info.maxWorkgroupSize, 64u);
  // Selection by index and by part of the name.
  EXPECT_EQ(chooseDevice(devices, "0"), 0);
  EXPECT_EQ(chooseDevice(devices, devices[0].name.substr(0, 4)), devices[0].index);
  try {
    chooseDevice(devices, "no-such-gpu");
    FAIL() << "no error";
  } catch (const VulkanUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("matches no device"), std::string::npos) << e.what();
  }
}

TEST(VulkanDevice, CopiesThroughAKernelWithTimestamps) {
  LSRL_VULKAN_DEVICE(dev);
  const uint32_t n = 4 * 1000;  // vec4 elements
  std::vector<float> host(4 * n);
  std::iota(host.begin(), host.end(), 0.5f);
  auto src = dev.buffer(host.size() * sizeof(float));
  auto dst = dev.buffer(host.size() * sizeof(float));
  dev.upload(*src, host.data(), host.size() * sizeof(float));
  const Kernel& copy = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  EXPECT_EQ(&copy, &shaderKernel(dev, "copy", 2, sizeof(uint32_t))) << "created once";
  Batch batch = dev.batch(Timing::PerDispatch);
  batch.dispatch(copy, {src.get(), dst.get()}, &n, sizeof n, groupsFor(n, copy.workgroup().x));
  const std::vector<double> ms = dev.run(batch);
  EXPECT_EQ(dev.download<float>(*dst, host.size()), host);
  if (dev.info().timestampPeriodNs > 0) {
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_GE(ms[0], 0.0);
  }
  // CI installs vulkan-validationlayers: there the layers watch every test.
  if (testing_vulkan::vulkanRequired()) {
    EXPECT_TRUE(dev.validationEnabled());
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// Timestamps are opt-in: an untimed batch returns no times (and records no queries).
TEST(VulkanDevice, TimesOnlyBatchesThatAskForIt) {
  LSRL_VULKAN_DEVICE(dev);
  const uint32_t n = 256;
  auto src = dev.buffer(16 * n), dst = dev.buffer(16 * n);
  const Kernel& copy = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  Batch untimed = dev.batch();
  untimed.dispatch(copy, {src.get(), dst.get()}, &n, sizeof n, groupsFor(n, copy.workgroup().x));
  const uint64_t queryPools = dev.counters().queryPools;
  EXPECT_TRUE(dev.run(untimed).empty());
  EXPECT_EQ(dev.counters().queryPools, queryPools);
  Batch timed = dev.batch(Timing::PerDispatch);
  timed.dispatch(copy, {src.get(), dst.get()}, &n, sizeof n, groupsFor(n, copy.workgroup().x));
  EXPECT_EQ(dev.run(timed).size(), dev.info().timestampPeriodNs > 0 ? 1u : 0u);
  EXPECT_TRUE(dev.validationErrors().empty());
}

// Two submissions in flight, each with its own staging in and out through Batch::copy
// (the path a device with device-local-only memory takes); then the same again, which
// reuses the frames: no new command buffers, descriptor pools or buffers.
TEST(VulkanDevice, OverlapsSubmissionsAndReusesTheirResources) {
  LSRL_VULKAN_DEVICE(dev);
  const uint32_t n = 1000;  // vec4 elements
  const size_t bytes = 16 * n;
  const Kernel& copy = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  struct Slot {
    std::shared_ptr<Buffer> in, out, src, dst;
  };
  std::array<Slot, 2> slots;
  for (Slot& s : slots) {
    s.in = dev.stagingBuffer(bytes);
    s.out = dev.stagingBuffer(bytes);
    s.src = dev.buffer(bytes);
    s.dst = dev.buffer(bytes);
    ASSERT_NE(dev.mapped(*s.in), nullptr);
  }
  auto round = [&](float base) {
    std::array<Submission, 2> inFlight;
    for (size_t k = 0; k < 2; ++k) {
      auto* in = static_cast<float*>(dev.mapped(*slots[k].in));
      std::iota(in, in + 4 * n, base + 10000.0f * float(k));
      Batch b = dev.batch();
      b.copy(*slots[k].in, *slots[k].src, bytes);
      b.dispatch(copy, {slots[k].src.get(), slots[k].dst.get()}, &n, sizeof n,
                 groupsFor(n, copy.workgroup().x));
      b.copy(*slots[k].dst, *slots[k].out, bytes);
      inFlight[k] = dev.submit(b);
      EXPECT_TRUE(inFlight[k].pending());
    }
    for (size_t k = 0; k < 2; ++k) {
      inFlight[k].wait();
      EXPECT_FALSE(inFlight[k].pending());
      const auto* out = static_cast<const float*>(dev.mapped(*slots[k].out));
      for (uint32_t i = 0; i < 4 * n; i += 997)
        ASSERT_EQ(out[i], base + 10000.0f * float(k) + float(i)) << "slot " << k << " at " << i;
    }
  };
  round(0.5f);
  const DeviceCounters before = dev.counters();
  round(7.25f);
  const DeviceCounters after = dev.counters();
  EXPECT_EQ(after.buffers, before.buffers);
  EXPECT_EQ(after.descriptorPools, before.descriptorPools);
  EXPECT_EQ(after.commandBuffers, before.commandBuffers);
  EXPECT_EQ(after.submissions, before.submissions + 2);
  // A copy past a buffer's end is refused before anything runs.
  Batch bad = dev.batch();
  EXPECT_THROW(bad.copy(*slots[0].in, *slots[0].src, bytes + 4), Error);
  EXPECT_THROW(bad.copy(*slots[0].in, *slots[0].src, 8, bytes - 4), Error);
  EXPECT_EQ(bad.size(), 0u);
  EXPECT_TRUE(dev.validationErrors().empty());
}

// A submission dropped without wait() is waited for by its destructor, and its frame
// serves the next batch.
TEST(VulkanDevice, DroppedSubmissionIsWaitedFor) {
  LSRL_VULKAN_DEVICE(dev);
  const uint32_t n = 64;
  std::vector<float> host(4 * n, 3.0f);
  auto src = dev.buffer(16 * n), dst = dev.buffer(16 * n);
  dev.upload(*src, host.data(), 16 * n);
  const Kernel& copy = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  {
    Batch b = dev.batch();
    b.dispatch(copy, {src.get(), dst.get()}, &n, sizeof n, 1);
    Submission dropped = dev.submit(b);
  }
  EXPECT_EQ(dev.download<float>(*dst, host.size()), host);
  Batch empty = dev.batch();
  EXPECT_FALSE(dev.submit(empty).pending());
  EXPECT_TRUE(dev.validationErrors().empty());
}

TEST(VulkanDevice, MisuseIsAnErrorNamingTheProblem) {
  LSRL_VULKAN_DEVICE(dev);
  auto a = dev.buffer(64);
  const Kernel& copy = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  Batch batch = dev.batch();
  const uint32_t n = 4;
  EXPECT_THROW(batch.dispatch(copy, {a.get()}, &n, sizeof n, 1), Error);  // 1 buffer of 2
  std::array<float, 32> big{};
  EXPECT_THROW(dev.upload(*a, big.data(), sizeof big), Error);  // 128 bytes into 64
  try {
    dev.buffer(dev.info().maxStorageBufferRange + 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("storage-buffer range"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shaderCode("no_such_shader"), Error);
}

// Batch::fill sets a range of 32-bit words among the batch's commands (the single-pass
// scan zeroes its flags so); a range off the buffer or off 4-byte alignment is refused.
TEST(VulkanDevice, FillsARangeOfWords) {
  LSRL_VULKAN_DEVICE(dev);
  auto buffer = dev.buffer(64);
  const std::vector<uint32_t> sevens(16, 7);
  dev.upload(*buffer, sevens.data(), 64);
  Batch batch = dev.batch();
  batch.fill(*buffer, 16, 32, 0);
  batch.fill(*buffer, 60, 4, 9);
  dev.run(batch);
  const std::vector<uint32_t> want = {7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7, 9};
  EXPECT_EQ(dev.download<uint32_t>(*buffer, 16), want);
  EXPECT_THROW(batch.fill(*buffer, 2, 4, 0), Error);   // not a word boundary
  EXPECT_THROW(batch.fill(*buffer, 60, 8, 0), Error);  // past the end
  testing_vulkan::expectNoValidationErrors(dev);
}

// A process whose loader finds no driver: `lsrl devices` says so and fails.
TEST(VulkanDevice, WithoutADriverTheCliSaysWhyAndFails) {
  const std::string cmd = std::string("VK_ICD_FILENAMES=/nonexistent/icd.json ") + LSRL_CLI_BINARY +
                          " devices 2>&1; echo rc=$?";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) text += buf.data();
  pclose(pipe);
  EXPECT_NE(text.find("lsrl devices: error: no Vulkan"), std::string::npos) << text;
  EXPECT_NE(text.find("rc=1"), std::string::npos) << text;
}

}  // namespace
}  // namespace lsrl::gpu
