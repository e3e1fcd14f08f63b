// The batch backends of `lsrl run`: fp32 on the CPU batch runner (core/float_batch) and on its
// Vulkan twin (core/gpu), for compiled models and target architectures, and fp64 on the
// Vulkan device for compiled models (--precision fp64, docs/vulkan.md). Sequences of
// different lengths run as separate batches (a batch runner needs one T).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "core/executor/executor.h"  // ExactSequence
#include "core/float_batch/layer_program.h"

namespace lsrl::gpu {
class Device;
}

namespace lsrl::cli {

class NonFiniteWatch;

enum class Fp32Backend { Cpu, Vulkan };

// Equal-length sequences handed to a batch runner a block at a time, so that a big batch
// (a binary token file, docs/input-format.md) is never held whole: `fill` writes sequences
// [first, first + count) into `tokens` ([count][steps][inputWidth]), `take` receives their
// outputs ([count][steps][outputWidth]). The blocks are those the sequence overloads below
// run, so both give the same outputs for the same sequences.
template <class Scalar>
struct SequenceBlocks {
  size_t sequences = 0;
  size_t steps = 0;  // at most INT_MAX
  std::function<void(size_t first, size_t count, std::span<Scalar> tokens)> fill;
  std::function<void(size_t first, size_t count, std::span<const Scalar> outputs)> take;
  // The index in the run's input of block sequence k, for the non-finite watch's messages
  // (unset: k itself).
  std::function<size_t(size_t k)> inputIndex;
};

// One output row per token per sequence, as doubles, of a compiled model's path graph
// (float_batch::layerProgramFromPath) or a target's weights (float_batch::layerProgramFromTarget).
// Throws lsrl::Error for bad tokens and gpu::VulkanUnavailable when Vulkan is asked for
// and there is no device (or no Vulkan in this build). On Vulkan, `device` (default: open
// the one LSRL_VULKAN_DEVICE picks) runs it, with the scan schedules the user's cached
// calibration chose (core/gpu/scan_calibration.h; measured on first use).
// With a `watch`, every block's first non-finite value is offered to it: on the CPU every
// layer's output is checked; on Vulkan the outputs are, and a sequence with a non-finite
// output is run again on its CPU twin (the fp32 CPU runner; the float64 executor of the
// watch's graph for fp64) to find the token and layer where it started.
std::vector<std::vector<std::vector<double>>> runFp32(const float_batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend,
                                                      gpu::Device* device = nullptr,
                                                      NonFiniteWatch* watch = nullptr);
void runFp32(const float_batch::LayerProgram& program, const SequenceBlocks<float>& blocks,
             Fp32Backend backend, gpu::Device* device = nullptr, NonFiniteWatch* watch = nullptr);

// The same in fp64 on the Vulkan device (float_batch::layerProgramFromPath<double>). Also throws
// lsrl::Error naming the device when it has no shaderFloat64.
std::vector<std::vector<std::vector<double>>> runVulkanFp64(
    const float_batch::LayerProgram64& program, const std::vector<ExactSequence>& sequences,
    gpu::Device* device = nullptr, NonFiniteWatch* watch = nullptr);
void runVulkanFp64(const float_batch::LayerProgram64& program, const SequenceBlocks<double>& blocks,
                   gpu::Device* device = nullptr, NonFiniteWatch* watch = nullptr);

// The fp32 (Scalar = float) or fp64 value of an input, refused when the format cannot hold
// it (as float64 refuses NaN and infinities: a silent inf or NaN would flow through the
// whole model). Throws lsrl::Error "sequence 3, token 5, feature 0 is 1e+39, which is not a
// finite fp32 number ...".
template <class Scalar>
Scalar deviceInput(double value, size_t sequence, size_t token, size_t feature);

}  // namespace lsrl::cli
