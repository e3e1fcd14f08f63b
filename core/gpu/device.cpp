// The only unit that includes vulkan.hpp (see device.h). Functions are loaded at run time
// through vk::DynamicLoader, so nothing links libvulkan.
#define VULKAN_HPP_DISPATCH_LOADER_DYNAMIC 1
#include "core/gpu/device.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <variant>
#include <vulkan/vulkan.hpp>

#include "core/gpu/workgroups.h"

VULKAN_HPP_DEFAULT_DISPATCH_LOADER_DYNAMIC_STORAGE

namespace lsrl::gpu {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

// A quarter of lavapipe's 65,535 iterations per loop and invocation: room for the loops
// the kernels' estimates do not count.
constexpr uint64_t kLavapipeLoopBudget = 16384;

// LSRL_VULKAN_LOOP_BUDGET when set to a number, else `fallback`.
uint64_t loopBudgetFromEnv(uint64_t fallback) {
  const char* v = std::getenv("LSRL_VULKAN_LOOP_BUDGET");
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end != nullptr && *end == '\0' ? n : fallback;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string typeName(vk::PhysicalDeviceType t) {
  switch (t) {
    case vk::PhysicalDeviceType::eDiscreteGpu:
      return "discrete";
    case vk::PhysicalDeviceType::eIntegratedGpu:
      return "integrated";
    case vk::PhysicalDeviceType::eVirtualGpu:
      return "virtual";
    case vk::PhysicalDeviceType::eCpu:
      return "cpu";
    default:
      return "other";
  }
}

// The loader and one instance for the process (device functions go through the loader's
// trampolines, so any number of devices share the one dispatcher).
struct Runtime {
  vk::DynamicLoader loader;
  vk::Instance instance;
  bool validation = false;
  vk::DebugUtilsMessengerEXT messenger;
  std::mutex messagesMutex;
  std::vector<std::string> errors;
};

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    auto* rt = static_cast<Runtime*>(user);
    const std::lock_guard lock(rt->messagesMutex);
    rt->errors.emplace_back(data->pMessage != nullptr ? data->pMessage : "(no message)");
  }
  return VK_FALSE;
}

// Created on first use; validation is decided then (option or LSRL_VULKAN_VALIDATION=1).
// It lives until the process ends, never destroyed: destroying the instance unloads the
// driver and the layers, after which leak checkers cannot name what those libraries
// left behind (scripts/lsan.supp suppresses their leaks by library name).
Runtime& runtime(bool validation) {
  static std::mutex mutex;
  static Runtime* rt = nullptr;
  const std::lock_guard lock(mutex);
  if (rt != nullptr) return *rt;
  auto made = std::make_unique<Runtime>();
  try {
    made->loader = vk::DynamicLoader();
  } catch (const std::exception& e) {
    throw VulkanUnavailable(std::string("no Vulkan loader (libvulkan.so.1): ") + e.what());
  }
  auto getProc = made->loader.getProcAddress<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr");
  if (getProc == nullptr) throw VulkanUnavailable("the Vulkan loader has no vkGetInstanceProcAddr");
  VULKAN_HPP_DEFAULT_DISPATCHER.init(getProc);

  validation = validation || envFlag("LSRL_VULKAN_VALIDATION");
  std::vector<const char*> layers, extensions;
  if (validation) {
    const auto available = vk::enumerateInstanceLayerProperties();
    const bool has = std::any_of(available.begin(), available.end(), [](const auto& l) {
      return std::strcmp(l.layerName, kValidationLayer) == 0;
    });
    if (has) {
      layers.push_back(kValidationLayer);
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    validation = has;
  }
  const vk::ApplicationInfo app("lsrl", 1, "lsrl", 1, VK_API_VERSION_1_1);
  try {
    made->instance = vk::createInstance(vk::InstanceCreateInfo({}, &app, layers, extensions));
  } catch (const vk::SystemError& e) {
    // With no driver installed vkCreateInstance fails (ErrorIncompatibleDriver) rather
    // than listing zero devices.
    throw VulkanUnavailable(std::string("no Vulkan driver: ") + e.what());
  }
  VULKAN_HPP_DEFAULT_DISPATCHER.init(made->instance);
  made->validation = validation;
  if (validation) {
    using S = vk::DebugUtilsMessageSeverityFlagBitsEXT;
    using T = vk::DebugUtilsMessageTypeFlagBitsEXT;
    made->messenger =
        made->instance.createDebugUtilsMessengerEXT(vk::DebugUtilsMessengerCreateInfoEXT(
            {}, S::eError | S::eWarning, T::eGeneral | T::eValidation | T::ePerformance,
            &onValidationMessage, made.get()));
  }
  rt = made.release();
  return *rt;
}

DeviceInfo describe(vk::PhysicalDevice pd, int index) {
  DeviceInfo info;
  info.index = index;
  const auto props = pd.getProperties();
  info.name = props.deviceName.data();
  info.type = typeName(props.deviceType);
  info.apiVersion = props.apiVersion;
  info.apiVersionText = std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
                        std::to_string(VK_API_VERSION_MINOR(props.apiVersion)) + "." +
                        std::to_string(VK_API_VERSION_PATCH(props.apiVersion));
  info.maxWorkgroupSize = props.limits.maxComputeWorkGroupInvocations;
  info.maxSharedMemory = props.limits.maxComputeSharedMemorySize;
  info.maxStorageBufferRange = props.limits.maxStorageBufferRange;

  const auto chain =
      pd.getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceSubgroupProperties,
                        vk::PhysicalDeviceDriverProperties>();
  const auto& sub = chain.get<vk::PhysicalDeviceSubgroupProperties>();
  info.subgroupSize = sub.subgroupSize;
  info.minSubgroupSize = info.maxSubgroupSize = sub.subgroupSize;
  info.subgroupArithmetic = (sub.supportedStages & vk::ShaderStageFlagBits::eCompute) &&
                            (sub.supportedOperations & vk::SubgroupFeatureFlagBits::eArithmetic);
  info.shaderFloat64 = pd.getFeatures().shaderFloat64 == VK_TRUE;
  const auto& driver = chain.get<vk::PhysicalDeviceDriverProperties>();
  info.driver = std::string(driver.driverName.data()) + " " + driver.driverInfo.data();
  if (props.apiVersion >= VK_API_VERSION_1_3) {
    const auto size = pd.getProperties2<vk::PhysicalDeviceProperties2,
                                        vk::PhysicalDeviceSubgroupSizeControlProperties>();
    const auto& s = size.get<vk::PhysicalDeviceSubgroupSizeControlProperties>();
    info.minSubgroupSize = s.minSubgroupSize;
    info.maxSubgroupSize = s.maxSubgroupSize;
  }
  const auto memory = pd.getMemoryProperties();
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if (memory.memoryHeaps[h].flags & vk::MemoryHeapFlagBits::eDeviceLocal)
      info.deviceLocalBytes += memory.memoryHeaps[h].size;
  info.timestampPeriodNs =
      props.limits.timestampComputeAndGraphics ? props.limits.timestampPeriod : 0;
  // Only CPU drivers (llvmpipe) cap a shader loop's iterations; GPUs run whole tiles.
  const bool llvmpipe = driver.driverID == vk::DriverId::eMesaLlvmpipe ||
                        props.deviceType == vk::PhysicalDeviceType::eCpu;
  info.loopIterationBudget = loopBudgetFromEnv(llvmpipe ? kLavapipeLoopBudget : 0);
  return info;
}

std::string deviceList(const std::vector<DeviceInfo>& devices) {
  std::string out;
  for (const DeviceInfo& d : devices) {
    if (!out.empty()) out += ", ";
    out += std::to_string(d.index) + ": " + d.name;
  }
  return out;
}

Error vulkanError(const std::string& what, const vk::SystemError& e) {
  return Error("Vulkan: " + what + ": " + e.what());
}

struct BufferImpl final : Buffer {
  vk::Device device;
  vk::Buffer buffer;
  vk::DeviceMemory memory;
  size_t size = 0;
  void* mapped = nullptr;  // host-visible coherent memory stays mapped

  size_t bytes() const override { return size; }
  ~BufferImpl() override {
    if (mapped != nullptr) device.unmapMemory(memory);
    if (buffer) device.destroyBuffer(buffer);
    if (memory) device.freeMemory(memory);
  }
};

struct KernelImpl final : Kernel {
  std::string label;
  vk::Device device;
  vk::ShaderModule module;
  vk::DescriptorSetLayout setLayout;
  vk::PipelineLayout layout;
  vk::Pipeline pipeline;
  int bindings = 0;
  uint32_t pushBytes = 0;
  WorkgroupSize workgroupSize;

  const std::string& name() const override { return label; }
  WorkgroupSize workgroup() const override { return workgroupSize; }
  ~KernelImpl() override {
    if (pipeline) device.destroyPipeline(pipeline);
    if (layout) device.destroyPipelineLayout(layout);
    if (setLayout) device.destroyDescriptorSetLayout(setLayout);
    if (module) device.destroyShaderModule(module);
  }
};

}  // namespace

// ------------------------------------------------------------------------------ devices

std::vector<DeviceInfo> listDevices() {
  Runtime& rt = runtime(false);
  std::vector<DeviceInfo> out;
  try {
    const auto devices = rt.instance.enumeratePhysicalDevices();
    for (size_t i = 0; i < devices.size(); ++i)
      out.push_back(describe(devices[i], static_cast<int>(i)));
  } catch (const vk::SystemError& e) {
    throw VulkanUnavailable(std::string("cannot list Vulkan devices: ") + e.what());
  }
  if (out.empty())
    throw VulkanUnavailable("no Vulkan device (the loader found no driver's device)");
  return out;
}

int chooseDevice(const std::vector<DeviceInfo>& devices, const std::string& selector) {
  if (devices.empty()) throw VulkanUnavailable("no Vulkan device");
  if (!selector.empty()) {
    const bool numeric = std::all_of(selector.begin(), selector.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (numeric) {
      const long index = std::strtol(selector.c_str(), nullptr, 10);
      if (index >= 0 && index < static_cast<long>(devices.size())) return static_cast<int>(index);
    } else {
      for (const DeviceInfo& d : devices)
        if (lower(d.name).find(lower(selector)) != std::string::npos) return d.index;
    }
    throw VulkanUnavailable("LSRL_VULKAN_DEVICE=" + selector + " matches no device (there are " +
                            deviceList(devices) + ")");
  }
  for (const char* type : {"discrete", "integrated"}) {
    for (const DeviceInfo& d : devices)
      if (d.type == type) return d.index;
  }
  return 0;
}

// ------------------------------------------------------------------------------- batch

struct Batch::Impl {
  struct Dispatch {
    const KernelImpl* kernel;
    std::vector<const BufferImpl*> buffers;
    std::vector<uint8_t> push;
    uint32_t groups[3];
  };
  struct Copy {
    const BufferImpl* from;
    const BufferImpl* to;
    vk::BufferCopy region;
  };
  struct Fill {
    const BufferImpl* buffer;
    size_t offset, bytes;
    uint32_t value;
  };
  std::vector<std::variant<Dispatch, Copy, Fill>> commands;
  size_t dispatches = 0;
  Timing timing = Timing::Off;
};

Batch::Batch(Batch&&) noexcept = default;
Batch& Batch::operator=(Batch&&) noexcept = default;
Batch::~Batch() = default;

size_t Batch::size() const { return impl_ ? impl_->commands.size() : 0; }
size_t Batch::dispatches() const { return impl_ ? impl_->dispatches : 0; }

void Batch::dispatch(const Kernel& kernel, std::initializer_list<const Buffer*> buffers,
                     const void* push, size_t pushBytes, uint32_t groupsX, uint32_t groupsY,
                     uint32_t groupsZ) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  const auto& k = static_cast<const KernelImpl&>(kernel);
  if (static_cast<int>(buffers.size()) != k.bindings)
    throw Error("kernel " + k.label + ": " + std::to_string(k.bindings) +
                " buffers expected, got " + std::to_string(buffers.size()));
  if (pushBytes != k.pushBytes)
    throw Error("kernel " + k.label + ": " + std::to_string(k.pushBytes) +
                " push-constant bytes expected, got " + std::to_string(pushBytes));
  Impl::Dispatch d{&k, {}, {}, {groupsX, groupsY, groupsZ}};
  for (const Buffer* b : buffers) d.buffers.push_back(static_cast<const BufferImpl*>(b));
  const auto* bytes = static_cast<const uint8_t*>(push);
  d.push.assign(bytes, bytes + pushBytes);
  impl_->commands.emplace_back(std::move(d));
  ++impl_->dispatches;
}

void Batch::copy(const Buffer& from, const Buffer& to, size_t bytes, size_t fromOffset,
                 size_t toOffset) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  if (fromOffset + bytes > from.bytes() || toOffset + bytes > to.bytes())
    throw Error("Vulkan copy of " + std::to_string(bytes) + " bytes from offset " +
                std::to_string(fromOffset) + " of a " + std::to_string(from.bytes()) +
                "-byte buffer to offset " + std::to_string(toOffset) + " of a " +
                std::to_string(to.bytes()) + "-byte buffer overruns one of them");
  if (bytes == 0) return;
  impl_->commands.emplace_back(Impl::Copy{static_cast<const BufferImpl*>(&from),
                                          static_cast<const BufferImpl*>(&to),
                                          vk::BufferCopy(fromOffset, toOffset, bytes)});
}

void Batch::fill(const Buffer& buffer, size_t offset, size_t bytes, uint32_t value) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  if (offset % 4 != 0 || bytes % 4 != 0 || offset + bytes > buffer.bytes())
    throw Error("Vulkan fill of " + std::to_string(bytes) + " bytes at offset " +
                std::to_string(offset) + " of a " + std::to_string(buffer.bytes()) +
                "-byte buffer: the range must be within it and both multiples of 4");
  if (bytes == 0) return;
  impl_->commands.emplace_back(
      Impl::Fill{static_cast<const BufferImpl*>(&buffer), offset, bytes, value});
}

// ------------------------------------------------------------------------------ device

// One submission's reusable resources. A batch takes a free frame; the frame's pools are
// reset (not recreated) for the next batch and regrown only when a batch needs more.
struct Frame {
  vk::CommandBuffer cmd;
  vk::Fence fence;
  vk::DescriptorPool descriptors;
  uint32_t descriptorSets = 0, storageDescriptors = 0;  // the pool's capacity
  vk::QueryPool queries;
  uint32_t queryCount = 0;
  uint32_t timedDispatches = 0;  // timestamp pairs the pending batch writes
  bool busy = false;
};

struct Device::Impl {
  Runtime* rt = nullptr;
  vk::PhysicalDevice physical;
  DeviceInfo info;
  vk::Device device;
  vk::Queue queue;
  uint32_t queueFamily = 0;
  vk::CommandPool pool;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::PhysicalDeviceLimits limits;
  bool timestamps = false;
  bool stagingOnly = false;  // Options::stagingOnly
  std::map<std::string, std::unique_ptr<KernelImpl>> kernels;
  std::vector<std::unique_ptr<Frame>> frames;
  std::unique_ptr<BufferImpl> staging;  // upload / download through device-local memory
  DeviceCounters counters;
  // The open timeline (timeline.h) and its dispatches' [start, end] in milliseconds.
  bool timelineOn = false;
  Timeline timeline;
  std::vector<std::pair<double, double>> dispatchIntervals;

  void addHost(HostPhase phase, double ms) {
    if (timelineOn) timeline.hostMs[static_cast<size_t>(phase)] += ms;
  }

  ~Impl() {
    if (!device) return;
    device.waitIdle();
    kernels.clear();
    staging.reset();
    for (const auto& f : frames) {
      if (f->fence) device.destroyFence(f->fence);
      if (f->descriptors) device.destroyDescriptorPool(f->descriptors);
      if (f->queries) device.destroyQueryPool(f->queries);
    }
    if (pool) device.destroyCommandPool(pool);  // frees the frames' command buffers
    device.destroy();
  }

  // A memory type with `required` flags among `bits`, or -1.
  int memoryType(uint32_t bits, vk::MemoryPropertyFlags required) const {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & required) == required)
        return static_cast<int>(i);
    return -1;
  }

  std::unique_ptr<BufferImpl> makeBuffer(size_t bytes, vk::BufferUsageFlags usage,
                                         bool hostVisible) {
    auto b = std::make_unique<BufferImpl>();
    b->device = device;
    b->size = bytes;
    b->buffer = device.createBuffer(vk::BufferCreateInfo({}, std::max<size_t>(bytes, 4), usage));
    const auto req = device.getBufferMemoryRequirements(b->buffer);
    using M = vk::MemoryPropertyFlagBits;
    int type = -1;
    if (hostVisible) {
      // Cached where there is such memory: the host reads results back from it, and reads
      // of uncached memory are slow.
      type = memoryType(req.memoryTypeBits, M::eHostVisible | M::eHostCoherent | M::eHostCached);
      if (type < 0) type = memoryType(req.memoryTypeBits, M::eHostVisible | M::eHostCoherent);
    } else {
      // Device-local memory the host reads as fast as its own (integrated GPUs, lavapipe):
      // mapped, no staging needed. A discrete GPU's mappable device memory (its BAR,
      // resizable or not) is uncached: each host read crosses PCIe on its own, so results
      // come back through a staging copy instead (docs/vulkan.md, "Where the time goes").
      type = memoryType(req.memoryTypeBits,
                        M::eDeviceLocal | M::eHostVisible | M::eHostCoherent | M::eHostCached);
      if (type < 0) type = memoryType(req.memoryTypeBits, M::eDeviceLocal);
    }
    if (type < 0)
      throw Error("Vulkan: no memory type for a " + std::to_string(bytes) + "-byte buffer");
    b->memory =
        device.allocateMemory(vk::MemoryAllocateInfo(req.size, static_cast<uint32_t>(type)));
    device.bindBufferMemory(b->buffer, b->memory, 0);
    if ((memory.memoryTypes[type].propertyFlags & M::eHostVisible) && (hostVisible || !stagingOnly))
      b->mapped = device.mapMemory(b->memory, 0, VK_WHOLE_SIZE);
    ++counters.buffers;
    return b;
  }

  // The staging buffer upload / download share, grown to at least `bytes`.
  BufferImpl& stagingOf(size_t bytes) {
    if (!staging || staging->size < bytes) {
      const size_t grown = std::max(bytes, staging ? 2 * staging->size : size_t{1} << 20);
      staging.reset();
      using U = vk::BufferUsageFlagBits;
      staging = makeBuffer(grown, U::eTransferSrc | U::eTransferDst, true);
    }
    return *staging;
  }

  // A free frame (a new one when all are in flight), marked busy.
  size_t acquireFrame() {
    for (size_t i = 0; i < frames.size(); ++i)
      if (!frames[i]->busy) {
        frames[i]->busy = true;
        return i;
      }
    auto f = std::make_unique<Frame>();
    f->cmd = device
                 .allocateCommandBuffers(
                     vk::CommandBufferAllocateInfo(pool, vk::CommandBufferLevel::ePrimary, 1))
                 .front();
    ++counters.commandBuffers;
    f->fence = device.createFence({});
    f->busy = true;
    frames.push_back(std::move(f));
    return frames.size() - 1;
  }

  // Descriptor sets for `layouts` from the frame's pool (reset, or regrown when short).
  std::vector<vk::DescriptorSet> descriptorSets(Frame& f,
                                                const std::vector<vk::DescriptorSetLayout>& layouts,
                                                uint32_t storage) {
    const uint32_t sets = static_cast<uint32_t>(layouts.size());
    if (!f.descriptors || f.descriptorSets < sets || f.storageDescriptors < storage) {
      if (f.descriptors) device.destroyDescriptorPool(f.descriptors);
      f.descriptors = nullptr;
      f.descriptorSets = std::max({sets, 2 * f.descriptorSets, 16u});
      f.storageDescriptors = std::max({storage, 2 * f.storageDescriptors, 64u});
      const vk::DescriptorPoolSize size(vk::DescriptorType::eStorageBuffer, f.storageDescriptors);
      f.descriptors =
          device.createDescriptorPool(vk::DescriptorPoolCreateInfo({}, f.descriptorSets, size));
      ++counters.descriptorPools;
    } else {
      device.resetDescriptorPool(f.descriptors);
    }
    if (layouts.empty()) return {};
    return device.allocateDescriptorSets(vk::DescriptorSetAllocateInfo(f.descriptors, layouts));
  }

  // The frame's query pool, grown to hold `count` timestamps.
  void reserveQueries(Frame& f, uint32_t count) {
    if (f.queries && f.queryCount >= count) return;
    if (f.queries) device.destroyQueryPool(f.queries);
    f.queries = nullptr;
    f.queryCount = std::max(count, 2 * f.queryCount);
    f.queries = device.createQueryPool(
        vk::QueryPoolCreateInfo({}, vk::QueryType::eTimestamp, f.queryCount));
    ++counters.queryPools;
  }

  // Records `record` into the frame's command buffer and submits it with the frame's fence.
  template <class F>
  void submitFrame(Frame& f, F record) {
    const auto recordStart = std::chrono::steady_clock::now();
    f.cmd.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
    record(f.cmd);
    f.cmd.end();
    addHost(HostPhase::Record, msSince(recordStart));
    const auto submitStart = std::chrono::steady_clock::now();
    queue.submit(vk::SubmitInfo({}, {}, f.cmd), f.fence);
    addHost(HostPhase::Submit, msSince(submitStart));
    ++counters.submissions;
    if (timelineOn) ++timeline.submissions;
  }

  // Waits for frame i, reads its timestamps and frees it for the next batch.
  std::vector<double> finish(size_t i) {
    Frame& f = *frames.at(i);
    std::vector<double> times;
    try {
      const auto waitStart = std::chrono::steady_clock::now();
      if (device.waitForFences(f.fence, VK_TRUE, UINT64_MAX) != vk::Result::eSuccess)
        throw Error("Vulkan: waiting for the device failed");
      addHost(HostPhase::Wait, msSince(waitStart));
      device.resetFences(f.fence);
      if (f.timedDispatches > 0) {
        const uint32_t n = f.timedDispatches;
        std::vector<uint64_t> stamps(2 * n);
        // Blocking on the device too: lavapipe signals the fence before the timestamps.
        const auto queriesStart = std::chrono::steady_clock::now();
        const auto r = device.getQueryPoolResults(
            f.queries, 0, 2 * n, stamps.size() * sizeof(uint64_t), stamps.data(), sizeof(uint64_t),
            vk::QueryResultFlagBits::e64 | vk::QueryResultFlagBits::eWait);
        if (r == vk::Result::eSuccess)
          for (uint32_t k = 0; k < n; ++k) {
            const double start = static_cast<double>(stamps[2 * k]) * info.timestampPeriodNs * 1e-6;
            const double end =
                static_cast<double>(stamps[2 * k + 1]) * info.timestampPeriodNs * 1e-6;
            times.push_back(end - start);
            if (timelineOn) dispatchIntervals.emplace_back(start, end);
          }
        addHost(HostPhase::Wait, msSince(queriesStart));
      }
    } catch (const vk::SystemError& e) {
      f.busy = false;
      throw vulkanError("waiting for a submission", e);
    } catch (...) {
      f.busy = false;
      throw;
    }
    f.timedDispatches = 0;
    f.busy = false;
    return times;
  }

  // Records `record` into a frame's command buffer, submits it and waits.
  template <class F>
  void submitAndWait(F record) {
    const size_t i = acquireFrame();
    try {
      submitFrame(*frames[i], record);
    } catch (...) {
      frames[i]->busy = false;
      throw;
    }
    finish(i);
  }
};

Device::Device() : impl_(std::make_unique<Impl>()) {}
Device::~Device() = default;

std::unique_ptr<Device> Device::open(Options options) {
  Runtime& rt = runtime(options.validation);
  const std::vector<DeviceInfo> devices = listDevices();
  const char* env = std::getenv("LSRL_VULKAN_DEVICE");
  const int index = options.index >= 0 ? options.index : chooseDevice(devices, env ? env : "");
  if (index < 0 || index >= static_cast<int>(devices.size()))
    throw VulkanUnavailable("no Vulkan device " + std::to_string(index) + " (there are " +
                            deviceList(devices) + ")");

  std::unique_ptr<Device> dev(new Device());
  Impl& d = *dev->impl_;
  d.rt = &rt;
  d.stagingOnly = options.stagingOnly;
  try {
    d.physical = rt.instance.enumeratePhysicalDevices().at(static_cast<size_t>(index));
    d.info = devices[static_cast<size_t>(index)];
    if (options.withoutFloat64) d.info.shaderFloat64 = false;
    if (options.loopIterationBudget) d.info.loopIterationBudget = *options.loopIterationBudget;
    d.memory = d.physical.getMemoryProperties();
    d.limits = d.physical.getProperties().limits;
    const auto families = d.physical.getQueueFamilyProperties();
    bool found = false;
    for (uint32_t i = 0; i < families.size() && !found; ++i) {
      if (families[i].queueFlags & vk::QueueFlagBits::eCompute) {
        d.queueFamily = i;
        d.timestamps = families[i].timestampValidBits > 0 && d.info.timestampPeriodNs > 0;
        found = true;
      }
    }
    if (!found) throw VulkanUnavailable("Vulkan device " + d.info.name + " has no compute queue");
    const float priority = 1.0f;
    const vk::DeviceQueueCreateInfo queueInfo({}, d.queueFamily, 1, &priority);
    // Doubles in shaders for the fp64 kernels (real.h), where the device has them.
    vk::PhysicalDeviceFeatures features;
    features.shaderFloat64 = d.info.shaderFloat64 ? VK_TRUE : VK_FALSE;
    d.device = d.physical.createDevice(vk::DeviceCreateInfo({}, queueInfo, {}, {}, &features));
    d.queue = d.device.getQueue(d.queueFamily, 0);
    d.pool = d.device.createCommandPool(vk::CommandPoolCreateInfo(
        vk::CommandPoolCreateFlagBits::eResetCommandBuffer, d.queueFamily));
  } catch (const vk::SystemError& e) {
    throw VulkanUnavailable("cannot open Vulkan device " + d.info.name + ": " + e.what());
  }
  if (!d.timestamps) d.info.timestampPeriodNs = 0;
  return dev;
}

std::string workgroupText(const WorkgroupSize& size) {
  std::string text = std::to_string(size.x);
  if (size.y != 1 || size.z != 1) text += "x" + std::to_string(size.y);
  if (size.z != 1) text += "x" + std::to_string(size.z);
  return text;
}

const DeviceInfo& Device::info() const { return impl_->info; }
bool Device::validationEnabled() const { return impl_->rt->validation; }

std::vector<std::string> Device::validationErrors() const {
  const std::lock_guard lock(impl_->rt->messagesMutex);
  return impl_->rt->errors;
}

std::shared_ptr<Buffer> Device::buffer(size_t bytes) {
  if (bytes > impl_->info.maxStorageBufferRange)
    throw Error("Vulkan: a buffer of " + std::to_string(bytes) + " bytes exceeds the device's " +
                std::to_string(impl_->info.maxStorageBufferRange) +
                "-byte storage-buffer range (split the batch)");
  using U = vk::BufferUsageFlagBits;
  try {
    return impl_->makeBuffer(bytes, U::eStorageBuffer | U::eTransferSrc | U::eTransferDst, false);
  } catch (const vk::SystemError& e) {
    throw vulkanError("allocating " + std::to_string(bytes) + " bytes", e);
  }
}

std::shared_ptr<Buffer> Device::stagingBuffer(size_t bytes) {
  using U = vk::BufferUsageFlagBits;
  try {
    return impl_->makeBuffer(bytes, U::eTransferSrc | U::eTransferDst, true);
  } catch (const vk::SystemError& e) {
    throw vulkanError("allocating " + std::to_string(bytes) + " bytes of staging memory", e);
  }
}

void* Device::mapped(const Buffer& b) const { return static_cast<const BufferImpl&>(b).mapped; }

void Device::upload(Buffer& to, const void* data, size_t bytes, size_t offset) {
  auto& b = static_cast<BufferImpl&>(to);
  if (offset + bytes > b.size)
    throw Error("Vulkan upload of " + std::to_string(bytes) + " bytes at " +
                std::to_string(offset) + " overruns a " + std::to_string(b.size) + "-byte buffer");
  if (bytes == 0) return;
  if (b.mapped != nullptr) {
    const HostPhaseTimer pack(*this, HostPhase::Pack);
    std::memcpy(static_cast<uint8_t*>(b.mapped) + offset, data, bytes);
    return;
  }
  try {
    BufferImpl& staging = impl_->stagingOf(bytes);
    {
      const HostPhaseTimer pack(*this, HostPhase::Pack);
      std::memcpy(staging.mapped, data, bytes);
    }
    if (impl_->timelineOn) ++impl_->timeline.copies;
    impl_->submitAndWait([&](vk::CommandBuffer cmd) {
      cmd.copyBuffer(staging.buffer, b.buffer, vk::BufferCopy(0, offset, bytes));
    });
  } catch (const vk::SystemError& e) {
    throw vulkanError("upload", e);
  }
}

void Device::download(const Buffer& from, void* data, size_t bytes, size_t offset) const {
  const auto& b = static_cast<const BufferImpl&>(from);
  if (offset + bytes > b.size)
    throw Error("Vulkan download of " + std::to_string(bytes) + " bytes at " +
                std::to_string(offset) + " overruns a " + std::to_string(b.size) + "-byte buffer");
  if (bytes == 0) return;
  Device& self = const_cast<Device&>(*this);  // the timeline is bookkeeping, not state
  if (b.mapped != nullptr) {
    const HostPhaseTimer unpack(self, HostPhase::Unpack);
    std::memcpy(data, static_cast<const uint8_t*>(b.mapped) + offset, bytes);
    return;
  }
  try {
    BufferImpl& staging = impl_->stagingOf(bytes);
    if (impl_->timelineOn) ++impl_->timeline.copies;
    impl_->submitAndWait([&](vk::CommandBuffer cmd) {
      cmd.copyBuffer(b.buffer, staging.buffer, vk::BufferCopy(offset, 0, bytes));
    });
    const HostPhaseTimer unpack(self, HostPhase::Unpack);
    std::memcpy(data, staging.mapped, bytes);
  } catch (const vk::SystemError& e) {
    throw vulkanError("download", e);
  }
}

const Kernel& Device::kernel(const std::string& name, std::span<const uint32_t> spirv, int bindings,
                             uint32_t pushBytes, WorkgroupSize workgroup,
                             const std::vector<uint32_t>& specialization) {
  // The size is part of the key: one shader at two sizes is two pipelines.
  std::string key = name + "[" + workgroupText(workgroup) + "]";
  for (uint32_t s : specialization) key += "/" + std::to_string(s);
  if (auto it = impl_->kernels.find(key); it != impl_->kernels.end()) return *it->second;
  if (pushBytes > impl_->limits.maxPushConstantsSize)
    throw Error("kernel " + name + ": " + std::to_string(pushBytes) +
                " push-constant bytes exceed the device's " +
                std::to_string(impl_->limits.maxPushConstantsSize));
  const auto& maxSize = impl_->limits.maxComputeWorkGroupSize;
  if (workgroup.x < 1 || workgroup.y < 1 || workgroup.z < 1 || workgroup.x > maxSize[0] ||
      workgroup.y > maxSize[1] || workgroup.z > maxSize[2] ||
      uint64_t(workgroup.x) * workgroup.y * workgroup.z >
          impl_->limits.maxComputeWorkGroupInvocations)
    throw Error("kernel " + name + ": a workgroup of " + workgroupText(workgroup) +
                " invocations exceeds the device's " + std::to_string(maxSize[0]) + "x" +
                std::to_string(maxSize[1]) + "x" + std::to_string(maxSize[2]) + " (at most " +
                std::to_string(impl_->limits.maxComputeWorkGroupInvocations) + " in all)");
  // The shader must take its size from constant 0 (or from literals that agree), so the
  // size dispatches divide by is the size it runs with (docs/vulkan.md, "Workgroup sizes").
  const WorkgroupSize declared = specializedWorkgroup(spirv, workgroup.x, specialization);
  if (declared != workgroup)
    throw Error("kernel " + name + ": the shader runs workgroups of " + workgroupText(declared) +
                ", the host asked for " + workgroupText(workgroup) +
                " (shaders take their size from specialization constant 0)");
  auto k = std::make_unique<KernelImpl>();
  k->label = key;
  k->device = impl_->device;
  k->bindings = bindings;
  k->pushBytes = pushBytes;
  k->workgroupSize = workgroup;
  try {
    k->module = impl_->device.createShaderModule(
        vk::ShaderModuleCreateInfo({}, spirv.size() * sizeof(uint32_t), spirv.data()));
    std::vector<vk::DescriptorSetLayoutBinding> slots;
    for (int i = 0; i < bindings; ++i)
      slots.emplace_back(static_cast<uint32_t>(i), vk::DescriptorType::eStorageBuffer, 1,
                         vk::ShaderStageFlagBits::eCompute);
    k->setLayout =
        impl_->device.createDescriptorSetLayout(vk::DescriptorSetLayoutCreateInfo({}, slots));
    const vk::PushConstantRange range(vk::ShaderStageFlagBits::eCompute, 0, pushBytes);
    k->layout = impl_->device.createPipelineLayout(vk::PipelineLayoutCreateInfo(
        {}, k->setLayout,
        pushBytes > 0 ? vk::ArrayProxyNoTemporaries<const vk::PushConstantRange>(range)
                      : vk::ArrayProxyNoTemporaries<const vk::PushConstantRange>()));
    // constant_id 0: the workgroup's x size; constant_id i + 1: specialization[i].
    std::vector<uint32_t> values{workgroup.x};
    values.insert(values.end(), specialization.begin(), specialization.end());
    std::vector<vk::SpecializationMapEntry> entries;
    for (uint32_t i = 0; i < values.size(); ++i) entries.emplace_back(i, i * 4u, 4u);
    const vk::SpecializationInfo spec(static_cast<uint32_t>(entries.size()), entries.data(),
                                      values.size() * sizeof(uint32_t), values.data());
    const vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute, k->module,
                                                  "main", &spec);
    auto result = impl_->device.createComputePipeline(
        {}, vk::ComputePipelineCreateInfo({}, stage, k->layout));
    if (result.result != vk::Result::eSuccess)
      throw Error("Vulkan: creating the pipeline of kernel " + name + " failed");
    k->pipeline = result.value;
  } catch (const vk::SystemError& e) {
    throw vulkanError("creating kernel " + name, e);
  }
  const Kernel& ref = *k;
  impl_->kernels.emplace(key, std::move(k));
  return ref;
}

Batch Device::batch(Timing timing) {
  Batch b;
  b.impl_ = std::make_unique<Batch::Impl>();
  b.impl_->timing = timing;
  return b;
}

Submission Device::submit(Batch& batch) {
  Submission submission;
  if (batch.size() == 0) return submission;
  Impl& d = *impl_;
  const Batch::Impl& b = *batch.impl_;
  const auto& maxGroups = d.limits.maxComputeWorkGroupCount;
  std::vector<vk::DescriptorSetLayout> layouts;
  uint32_t storage = 0;
  for (const auto& command : b.commands) {
    const auto* x = std::get_if<Batch::Impl::Dispatch>(&command);
    if (x == nullptr) continue;
    for (int a = 0; a < 3; ++a) {
      if (x->groups[a] == 0 || x->groups[a] > maxGroups[a])
        throw Error("kernel " + x->kernel->label + ": " + std::to_string(x->groups[a]) +
                    " workgroups in dimension " + std::to_string(a) + " (the device allows 1.." +
                    std::to_string(maxGroups[a]) + ")");
    }
    layouts.push_back(x->kernel->setLayout);
    storage += static_cast<uint32_t>(x->buffers.size());
  }
  const uint32_t n = static_cast<uint32_t>(layouts.size());
  // An open timeline times every dispatch, whatever the batch asked for.
  const bool timed = (b.timing == Timing::PerDispatch || d.timelineOn) && d.timestamps && n > 0;
  const auto recordStart = std::chrono::steady_clock::now();
  const size_t frameIndex = d.acquireFrame();
  Frame& f = *d.frames[frameIndex];
  try {
    const auto sets = d.descriptorSets(f, layouts, storage);
    if (timed) d.reserveQueries(f, 2 * n);
    f.timedDispatches = timed ? n : 0;
    uint32_t set = 0;
    for (const auto& command : b.commands) {
      const auto* x = std::get_if<Batch::Impl::Dispatch>(&command);
      if (x == nullptr) continue;
      std::vector<vk::DescriptorBufferInfo> infos;
      for (const BufferImpl* buf : x->buffers) infos.emplace_back(buf->buffer, 0, VK_WHOLE_SIZE);
      std::vector<vk::WriteDescriptorSet> writes;
      for (uint32_t j = 0; j < infos.size(); ++j)
        writes.emplace_back(sets[set], j, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr,
                            &infos[j]);
      d.device.updateDescriptorSets(writes, {});
      ++set;
    }
    d.addHost(HostPhase::Record, msSince(recordStart));
    if (d.timelineOn) {
      d.timeline.dispatches += n;
      d.timeline.copies += b.commands.size() - n;
      d.timeline.barriers += b.commands.size();  // one between commands, one before the host
    }
    d.submitFrame(f, [&](vk::CommandBuffer cmd) {
      if (timed) cmd.resetQueryPool(f.queries, 0, 2 * n);
      // Every command sees what the ones before it wrote, by shader or by copy.
      using A = vk::AccessFlagBits;
      using S = vk::PipelineStageFlagBits;
      const vk::MemoryBarrier between(
          A::eShaderWrite | A::eTransferWrite,
          A::eShaderRead | A::eShaderWrite | A::eTransferRead | A::eTransferWrite);
      uint32_t i = 0;
      for (size_t c = 0; c < b.commands.size(); ++c) {
        if (c > 0)
          cmd.pipelineBarrier(S::eComputeShader | S::eTransfer, S::eComputeShader | S::eTransfer,
                              {}, between, {}, {});
        if (const auto* copy = std::get_if<Batch::Impl::Copy>(&b.commands[c])) {
          cmd.copyBuffer(copy->from->buffer, copy->to->buffer, copy->region);
          continue;
        }
        if (const auto* fill = std::get_if<Batch::Impl::Fill>(&b.commands[c])) {
          cmd.fillBuffer(fill->buffer->buffer, fill->offset, fill->bytes, fill->value);
          continue;
        }
        const auto& x = std::get<Batch::Impl::Dispatch>(b.commands[c]);
        cmd.bindPipeline(vk::PipelineBindPoint::eCompute, x.kernel->pipeline);
        cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, x.kernel->layout, 0, sets[i], {});
        if (!x.push.empty())
          cmd.pushConstants(x.kernel->layout, vk::ShaderStageFlagBits::eCompute, 0,
                            static_cast<uint32_t>(x.push.size()), x.push.data());
        if (timed) cmd.writeTimestamp(S::eTopOfPipe, f.queries, 2 * i);
        cmd.dispatch(x.groups[0], x.groups[1], x.groups[2]);
        if (timed) cmd.writeTimestamp(S::eBottomOfPipe, f.queries, 2 * i + 1);
        ++i;
      }
      // Results become visible to the host (mapped buffers) and to later transfers.
      const vk::MemoryBarrier out(A::eShaderWrite | A::eTransferWrite,
                                  A::eHostRead | A::eTransferRead);
      cmd.pipelineBarrier(S::eComputeShader | S::eTransfer, S::eHost | S::eTransfer, {}, out, {},
                          {});
    });
  } catch (const vk::SystemError& e) {
    f.busy = false;
    throw vulkanError("submitting " + std::to_string(b.commands.size()) + " commands", e);
  } catch (...) {
    f.busy = false;
    throw;
  }
  submission.device_ = this;
  submission.frame_ = frameIndex;
  return submission;
}

std::vector<double> Device::run(Batch& batch) { return submit(batch).wait(); }

DeviceCounters Device::counters() const { return impl_->counters; }

void Device::openTimeline() {
  impl_->timelineOn = true;
  impl_->timeline = Timeline{};
  impl_->timeline.timed = impl_->timestamps;
  impl_->dispatchIntervals.clear();
}

Timeline Device::closeTimeline() {
  Timeline t = impl_->timeline;
  std::tie(t.gpuBusyMs, t.gpuSpanMs) = busyAndSpan(std::move(impl_->dispatchIntervals));
  impl_->timelineOn = false;
  impl_->timeline = Timeline{};
  impl_->dispatchIntervals.clear();
  return t;
}

bool Device::timelineOpen() const { return impl_->timelineOn; }

void Device::addHostTime(HostPhase phase, double ms) { impl_->addHost(phase, ms); }

// ------------------------------------------------------------------------------ submission

Submission::Submission(Submission&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)), frame_(other.frame_) {}

Submission& Submission::operator=(Submission&& other) noexcept {
  if (this != &other) {
    if (pending()) {
      try {
        wait();
      } catch (...) {  // a lost device: nothing left to wait for
      }
    }
    device_ = std::exchange(other.device_, nullptr);
    frame_ = other.frame_;
  }
  return *this;
}

Submission::~Submission() {
  if (!pending()) return;
  try {
    wait();
  } catch (...) {  // a destructor cannot report it; the next call on the device will
  }
}

std::vector<double> Submission::wait() {
  if (!pending()) return {};
  Device* dev = std::exchange(device_, nullptr);
  return dev->impl_->finish(frame_);
}

}  // namespace lsrl::gpu
