// The Vulkan compute device (lsrl_gpu): instance and device choice, storage buffers with
// staging, compute pipelines created once from embedded SPIR-V, and batches of
// dispatches submitted asynchronously (optionally timed with timestamp queries).
//
// No Vulkan header appears here: vulkan.hpp is heavy to compile (seconds and hundreds of
// MB per unit), so device.cpp is the only unit that includes it. The loader is opened at
// run time (dynamic dispatch), so the CLI and the explorer start on machines without
// libvulkan and fall back to the CPU: every entry point throws VulkanUnavailable with the
// reason when no loader, driver or device can be had.
//
//   auto dev = gpu::Device::open();                       // LSRL_VULKAN_DEVICE picks
//   auto x = dev->buffer(n * sizeof(float));
//   dev->upload(*x, host.data(), n * sizeof(float));
//   const gpu::Kernel& k = dev->kernel("relu", kReluSpv, /*bindings=*/2, /*push=*/4, {256});
//   gpu::Batch b = dev->batch(gpu::Timing::PerDispatch);
//   b.dispatch(k, {x.get(), y.get()}, &n, sizeof n, groupsFor(n, k.workgroup().x));
//   std::vector<double> ms = dev->run(b);                 // per-dispatch GPU time
//   gpu::Submission s = dev->submit(other);               // or: overlap with host work
//   ...; s.wait();
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/gpu/timeline.h"
#include "core/util/error.h"

namespace lsrl::gpu {

// No Vulkan here (no loader, no driver, no device, or it failed to start): the message
// says which, and the caller falls back to the CPU.
class VulkanUnavailable : public Error {
 public:
  using Error::Error;
};

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;
  uint32_t apiVersion = 0;  // VK_MAKE_API_VERSION packing
  std::string apiVersionText;
  // Subgroups as the device reports them (never assume 32: lavapipe has 8, AMD 64).
  uint32_t subgroupSize = 0;
  uint32_t minSubgroupSize = 0;
  uint32_t maxSubgroupSize = 0;
  bool subgroupArithmetic = false;  // GL_KHR_shader_subgroup_arithmetic in compute shaders
  bool shaderFloat64 = false;       // doubles in shaders (the fp64 kernels, real.h)
  uint32_t maxWorkgroupSize = 0;    // invocations per workgroup
  uint32_t maxSharedMemory = 0;     // bytes per workgroup
  uint64_t maxStorageBufferRange = 0;
  uint64_t deviceLocalBytes = 0;
  double timestampPeriodNs = 0;  // 0: no compute timestamps
  // Loop iterations one invocation may run in one dispatch (0: no limit). lavapipe
  // (llvmpipe) silently ends a shader loop after 65,535 iterations over an invocation's
  // lifetime, so kernels that walk time split T into dispatches on it (kernel_support.h's
  // stepsPerDispatch); a GPU runs all of a tile's steps in one. LSRL_VULKAN_LOOP_BUDGET
  // overrides it (a number; 0: no limit), e.g. where a watchdog ends long dispatches.
  uint64_t loopIterationBudget = 0;
};

// A driver that runs shaders on the host's CPU (lavapipe): a barrier is a coroutine switch
// there and a dispatch costs little, so what pays on a GPU (fused paths, every layer on the
// device) can cost more than it saves (docs/vulkan.md).
inline bool isCpuDriver(const DeviceInfo& info) { return info.type == "cpu"; }

// Every physical device. Throws VulkanUnavailable.
std::vector<DeviceInfo> listDevices();

// The device Device::open takes: `selector` (LSRL_VULKAN_DEVICE's value: an index or a
// case-insensitive part of the name) when given, else the first discrete GPU, else the
// first integrated one, else device 0. Throws VulkanUnavailable when the selector matches
// nothing (naming the devices there are).
int chooseDevice(const std::vector<DeviceInfo>& devices, const std::string& selector);

// A storage buffer on the device (opaque; owned through shared_ptr).
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t bytes() const = 0;
};

// Invocations per workgroup along x, y, z.
struct WorkgroupSize {
  uint32_t x = 1, y = 1, z = 1;
  uint32_t invocations() const { return x * y * z; }
  friend bool operator==(const WorkgroupSize&, const WorkgroupSize&) = default;
};
std::string workgroupText(const WorkgroupSize& size);  // "256", "16x16"

// A compute pipeline: its descriptor layout (storage buffers at bindings 0..n-1), push
// constant size, workgroup size and specialization constants are fixed at creation.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& name() const = 0;
  // The size the pipeline was specialized with: what group counts divide by.
  virtual WorkgroupSize workgroup() const = 0;
};

// Whether a batch records a timestamp pair around each dispatch. Off by default: the
// queries cost a pipeline drain per dispatch on some drivers, and only benches read them.
enum class Timing { Off, PerDispatch };

// Dispatches and buffer copies recorded in order, each separated from the next by a
// barrier, run as one submission by Device::submit / Device::run. The buffers must stay
// alive until the submission has finished.
class Batch {
 public:
  Batch() = default;
  Batch(Batch&&) noexcept;
  Batch& operator=(Batch&&) noexcept;
  ~Batch();

  void dispatch(const Kernel& kernel, std::initializer_list<const Buffer*> buffers,
                const void* push, size_t pushBytes, uint32_t groupsX, uint32_t groupsY = 1,
                uint32_t groupsZ = 1);
  // A device-side copy (a staging buffer in or out, for devices whose memory the host
  // cannot map). Throws lsrl::Error when a range overruns its buffer.
  void copy(const Buffer& from, const Buffer& to, size_t bytes, size_t fromOffset = 0,
            size_t toOffset = 0);
  // Sets `bytes` bytes of `buffer` from `offset` (both multiples of 4) to the 32-bit
  // `value` (vkCmdFillBuffer: counters and flags a kernel expects zeroed).
  void fill(const Buffer& buffer, size_t offset, size_t bytes, uint32_t value);
  size_t size() const;  // commands recorded (dispatches, copies and fills)
  size_t dispatches() const;

 private:
  friend class Device;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Device;

// A batch in flight. wait() blocks until it has run and returns each dispatch's GPU time
// in milliseconds (empty unless the batch was recorded with Timing::PerDispatch or the
// device has no timestamps). Destroying a pending submission waits for it.
class Submission {
 public:
  Submission() = default;
  Submission(Submission&& other) noexcept;
  Submission& operator=(Submission&& other) noexcept;
  ~Submission();
  std::vector<double> wait();
  bool pending() const { return device_ != nullptr; }

 private:
  friend class Device;
  Device* device_ = nullptr;
  size_t frame_ = 0;
};

// What the device has created since it was opened: tests assert that steady-state work
// (another tile, another call of the same shape) creates nothing.
struct DeviceCounters {
  uint64_t buffers = 0;          // storage and staging buffers
  uint64_t descriptorPools = 0;  // created or regrown
  uint64_t queryPools = 0;
  uint64_t commandBuffers = 0;
  uint64_t submissions = 0;
};

class Device {
 public:
  struct Options {
    int index = -1;           // -1: chooseDevice with LSRL_VULKAN_DEVICE
    bool validation = false;  // also on when LSRL_VULKAN_VALIDATION=1
    // Open the device as if it lacked shaderFloat64 (tests of the fp64 kernels' refusal).
    bool withoutFloat64 = false;
    // Map no storage buffer, so the host reaches them through staging as on a discrete
    // GPU without resizable BAR (tests that path on lavapipe, whose memory is all mapped).
    bool stagingOnly = false;
    // Replaces DeviceInfo::loopIterationBudget (tests run whole tiles on lavapipe with 0,
    // over series short enough for its loop cap, as a GPU runs them).
    std::optional<uint64_t> loopIterationBudget = std::nullopt;
  };
  // Throws VulkanUnavailable.
  static std::unique_ptr<Device> open(Options options);
  static std::unique_ptr<Device> open() { return open(Options{}); }
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const;
  bool validationEnabled() const;
  // Messages of severity error from the validation layers so far (empty without them).
  std::vector<std::string> validationErrors() const;

  // Buffers; throws lsrl::Error naming the size when it exceeds maxStorageBufferRange or
  // memory runs out.
  std::shared_ptr<Buffer> buffer(size_t bytes);
  // Host-visible memory for Batch::copy to and from a device-local buffer.
  std::shared_ptr<Buffer> stagingBuffer(size_t bytes);
  // Where the host reads and writes `b` directly: its mapping, or nullptr when the memory
  // is device-local only (then go through a staging buffer or upload / download).
  void* mapped(const Buffer& b) const;
  void upload(Buffer& to, const void* data, size_t bytes, size_t offset = 0);
  void download(const Buffer& from, void* data, size_t bytes, size_t offset = 0) const;
  template <class T>
  std::vector<T> download(const Buffer& from, size_t count) const {
    std::vector<T> out(count);
    download(from, out.data(), count * sizeof(T));
    return out;
  }

  // The pipeline `name` (created on first use from `spirv`, cached under the name, the
  // workgroup size and the specialization constants). constant_id 0 is the workgroup's x
  // size (`layout(local_size_x_id = 0)`, as ggml's shaders do) and constant_id i + 1 takes
  // specialization[i] (docs/vulkan.md, "Workgroup sizes"). Throws lsrl::Error when the
  // size the SPIR-V declares, so specialized, is not `workgroup`, or exceeds the device's.
  // Callers take sizes from core/gpu/workgroups.h (shaderKernel).
  const Kernel& kernel(const std::string& name, std::span<const uint32_t> spirv, int bindings,
                       uint32_t pushBytes, WorkgroupSize workgroup,
                       const std::vector<uint32_t>& specialization = {});

  Batch batch(Timing timing = Timing::Off);
  // Submits without waiting: the host prepares the next batch while this one runs. A few
  // submissions may be in flight at once; each reuses a command buffer, fence, descriptor
  // pool and query pool from earlier ones (grown when a batch needs more).
  Submission submit(Batch& batch);
  // Submits and waits: submit(batch).wait().
  std::vector<double> run(Batch& batch);

  DeviceCounters counters() const;

  // A timeline of what follows (timeline.h): while one is open every submission is timed
  // per dispatch and counted, and the host's phases are summed; closeTimeline returns it
  // and closes it. Opening one while one is open starts it afresh.
  void openTimeline();
  Timeline closeTimeline();
  bool timelineOpen() const;
  // Adds host time to the open timeline's phase (nothing when none is open).
  void addHostTime(HostPhase phase, double ms);

 private:
  Device();
  friend class Submission;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Workgroups covering n items, `size` per workgroup.
inline uint32_t groupsFor(size_t n, uint32_t size) {
  return static_cast<uint32_t>((n + size - 1) / size);
}

}  // namespace lsrl::gpu
