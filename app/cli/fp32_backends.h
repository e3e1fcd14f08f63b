// The fp32 batch backends of `lsrl run`: the CPU batch runner (core/batch) and its Vulkan
// twin (core/vulkan), for compiled models and target architectures. Sequences of different lengths
// run as separate batches (a batch runner needs one T).
#pragma once

#include <vector>

#include "core/batch/layer_program.h"
#include "core/run/executor.h"  // ExactSequence

namespace lsrl::cli {

enum class Fp32Backend { Cpu, Vulkan };

// One output row per token per sequence, as doubles, of a compiled model's path graph
// (batch::layerProgramFromPath) or a target's weights (batch::layerProgramFromTarget).
// Throws lsrl::Error for bad tokens and gpu::VulkanUnavailable when Vulkan is asked for
// and there is no device (or no Vulkan in this build).
std::vector<std::vector<std::vector<double>>> runFp32(const batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend);

}  // namespace lsrl::cli
