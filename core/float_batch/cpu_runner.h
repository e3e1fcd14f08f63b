// The fp32 CPU batch runner: a LayerProgram over B sequences of T tokens, layer by layer
// over whole token series (a Linear is one matrix times B·T rows, a LinState its drive
// then a scan), with the CPU twins of the Vulkan kernels (core/float_batch/*.h). It is the CPU
// side of every Vulkan figure: the same decomposition, the same fp32 arithmetic.
//
// Sequences are processed in tiles (whole sequences, so a tile's working set stays near
// tileBytes), tiles spread over threads.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/float_batch/layer_program.h"
#include "core/float_batch/layouts.h"
#include "core/util/nonfinite.h"

namespace lsrl::float_batch {

struct CpuRunOptions {
  int threads = 0;  // 0: every hardware thread
  // Per tile and buffer: small enough to stay in cache across the layers (on the UA job
  // 1 MiB tiles ran 3x faster than 64 MiB ones) and to share the work between threads.
  size_t tileBytes = 1u << 20;
  // When given: every layer's output is checked as it is computed (a ReLU's through its
  // input), and the first value that is not finite (the earliest sequence, token, then
  // layer; where = the layer's source, "node 2 (Linear)", "gru layer 1: W_ih"), also one
  // a later layer hides,
  // replaces what this holds when it came earlier (sequences counted in this batch).
  std::optional<NonFiniteSite>* nonFinite = nullptr;
};

// tokens: [B][T][inputWidth] (shape.channels = inputWidth). Returns [B][T][outputWidth].
// With `layerOutputs`, it receives every layer's output too ([layer][b][t][width]): the
// per-layer trace. Throws lsrl::Error on a shape mismatch.
std::vector<float> runLayersCpu(const LayerProgram& program, const SeriesShape& shape,
                                std::span<const float> tokens, const CpuRunOptions& options = {},
                                std::vector<std::vector<float>>* layerOutputs = nullptr);

// Sequences of one length given as doubles: rounded to fp32, run by runLayersCpu, the
// outputs back as doubles, [sequence][step][output]. Throws lsrl::Error when the lengths
// differ.
std::vector<std::vector<std::vector<double>>> runSequencesCpu(
    const LayerProgram& program, const std::vector<std::vector<std::vector<double>>>& sequences);

}  // namespace lsrl::float_batch
