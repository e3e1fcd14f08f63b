#include "core/gpu/kernel_support.h"

#include <algorithm>
#include <string>

#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

void checkBuffer(const char* kernel, const char* what, const Buffer* buffer, size_t bytes) {
  if (buffer == nullptr) throw Error(std::string(kernel) + ": buffer " + what + " missing");
  if (buffer->bytes() < bytes)
    throw Error(std::string(kernel) + ": expected buffer " + what + " of at least " +
                std::to_string(bytes) + " bytes, got " + std::to_string(buffer->bytes()));
}

namespace {
template <class T>
std::shared_ptr<Buffer> uploadArray(Device& dev, std::span<const T> host) {
  auto buffer = dev.buffer(std::max<size_t>(host.size_bytes(), sizeof(T)));
  if (!host.empty()) dev.upload(*buffer, host.data(), host.size_bytes());
  return buffer;
}
}  // namespace

std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const float> host) {
  return uploadArray(dev, host);
}

std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const double> host) {
  return uploadArray(dev, host);
}

std::shared_ptr<Buffer> uploadIndices(Device& dev, std::span<const uint32_t> host) {
  return uploadArray(dev, host);
}

SequenceGroup sequenceGroup(const char* kernel, std::string_view shader, const DeviceInfo& info,
                            int channels, size_t valueBytes) {
  SequenceGroup g;
  g.local = std::min(shaderWorkgroup(shader).x, std::max<uint32_t>(info.maxWorkgroupSize, 1));
  g.perInvocation = groupsFor(size_t(channels), g.local);
  const size_t sharedBytes = size_t(g.perInvocation) * g.local * valueBytes;
  if (sharedBytes > info.maxSharedMemory)
    throw Error(std::string(kernel) + ": expected at most " +
                std::to_string(info.maxSharedMemory / valueBytes / g.local * g.local) +
                " channels (the state must fit in " + std::to_string(info.maxSharedMemory) +
                " bytes of shared memory), got C=" + std::to_string(channels));
  return g;
}

uint32_t stepsPerDispatch(const DeviceInfo& info, uint64_t iterationsPerStep) {
  if (info.loopIterationBudget == 0) return kMaxStepsPerDispatch;
  const uint64_t steps = info.loopIterationBudget / std::max<uint64_t>(iterationsPerStep, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>(steps, 1, kMaxStepsPerDispatch));
}

uint64_t recurrenceIterationsPerStep(uint32_t perInvocation, uint32_t rowsPerUnit,
                                     uint32_t maxRowNonZeros, size_t nonzeros) {
  const uint64_t row = maxRowNonZeros > 0 ? maxRowNonZeros : nonzeros;
  return uint64_t(perInvocation) * (uint64_t(rowsPerUnit) * (row + 1) + 2) + 2;
}

}  // namespace lsrl::gpu
