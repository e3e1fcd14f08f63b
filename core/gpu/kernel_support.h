// Pieces the Vulkan kernel families share: buffer-size checks that name the kernel, host
// uploads, and the workgroup shape of the kernels that walk one sequence per workgroup
// with its state in shared memory (recurrence_csr, gru_recurrence, lstm_recurrence).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "core/gpu/device.h"

namespace lsrl::gpu {

// Throws lsrl::Error naming `kernel` and `what` when `buffer` is null or under `bytes`.
void checkBuffer(const char* kernel, const char* what, const Buffer* buffer, size_t bytes);

// A buffer holding `host` (at least one value, so an empty array still binds).
std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const float> host);
std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const double> host);
std::shared_ptr<Buffer> uploadIndices(Device& dev, std::span<const uint32_t> host);

// One workgroup per sequence: `local` invocations, each owning `perInvocation` of the
// `channels` state slots (strided by local), local · perInvocation values of shared memory.
struct SequenceGroup {
  uint32_t local = 0;
  uint32_t perInvocation = 0;
};
// `local` is `shader`'s table size (core/gpu/workgroups.h) capped by the device's limit.
// Throws lsrl::Error naming `kernel` when the state (`valueBytes` per slot) does not fit in
// shared memory.
SequenceGroup sequenceGroup(const char* kernel, std::string_view shader, const DeviceInfo& info,
                            int channels, size_t valueBytes = sizeof(float));

// Time steps per dispatch for a kernel that walks time, given a bound on one invocation's
// loop iterations per step and the device's loop budget (DeviceInfo::loopIterationBudget).
// lavapipe (llvmpipe) silently stops a loop after 65,535 iterations over an invocation's
// lifetime — inner loops count across the time steps — so there such kernels run T as
// several dispatches of at most this many steps, each continuing from the state the last
// left; a device without a budget runs every step in one dispatch (kMaxStepsPerDispatch).
inline constexpr uint32_t kMaxStepsPerDispatch = 1u << 30;
uint32_t stepsPerDispatch(const DeviceInfo& info, uint64_t iterationsPerStep);

// One invocation's loop iterations per step of a one-workgroup-per-sequence recurrence:
// `perInvocation` units, each reading `rowsPerUnit` CSR rows of A (whose longest row has
// `maxRowNonZeros` entries; 0: unknown, and `nonzeros` bounds it), plus the state copies.
uint64_t recurrenceIterationsPerStep(uint32_t perInvocation, uint32_t rowsPerUnit,
                                     uint32_t maxRowNonZeros, size_t nonzeros);

}  // namespace lsrl::gpu
