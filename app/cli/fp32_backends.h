// The batch backends of `lsrl run`: fp32 on the CPU batch runner (core/float_batch) and on its
// Vulkan twin (core/gpu), for compiled models and target architectures, and fp64 on the
// Vulkan device for compiled models (--precision fp64, docs/vulkan.md). Sequences of
// different lengths run as separate batches (a batch runner needs one T).
#pragma once

#include <vector>

#include "core/executor/executor.h"  // ExactSequence
#include "core/float_batch/layer_program.h"

namespace lsrl::gpu {
class Device;
}

namespace lsrl::cli {

enum class Fp32Backend { Cpu, Vulkan };

// One output row per token per sequence, as doubles, of a compiled model's path graph
// (float_batch::layerProgramFromPath) or a target's weights (float_batch::layerProgramFromTarget).
// Throws lsrl::Error for bad tokens and gpu::VulkanUnavailable when Vulkan is asked for
// and there is no device (or no Vulkan in this build). On Vulkan, `device` (default: open
// the one LSRL_VULKAN_DEVICE picks) runs it, with the scan schedules the user's cached
// calibration chose (core/gpu/scan_calibration.h; measured on first use).
std::vector<std::vector<std::vector<double>>> runFp32(const float_batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend,
                                                      gpu::Device* device = nullptr);

// The same in fp64 on the Vulkan device (float_batch::layerProgramFromPath<double>). Also throws
// lsrl::Error naming the device when it has no shaderFloat64.
std::vector<std::vector<std::vector<double>>> runVulkanFp64(
    const float_batch::LayerProgram64& program, const std::vector<ExactSequence>& sequences,
    gpu::Device* device = nullptr);

}  // namespace lsrl::cli
