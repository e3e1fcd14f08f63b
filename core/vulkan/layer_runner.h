// The Vulkan batch runner: a LayerProgram (core/batch/layer_program.h) over B sequences of
// T tokens, the twin of core/batch/cpu_runner.h — the same layers in the same order, in the
// same buffers (batch::planBuffers), with the device kernels (matvec_kernels.h,
// elementwise_kernels.h, scan_kernels.h, gated_cell_kernels.h, conv_lru_kernels.h), in fp32.
// Weights are uploaded once; sequences go through in tiles whose buffers fit the device's
// storage-buffer range, each tile's layers recorded into one submission.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/batch/layer_program.h"
#include "core/vulkan/device.h"
#include "core/vulkan/gated_cell_kernels.h"
#include "core/vulkan/matvec_kernels.h"
#include "core/vulkan/scan_kernels.h"

namespace lsrl::gpu {

struct LayerRunOptions {
  size_t tileBytes = 32u << 20;  // per buffer; capped by the device's range
  ScanOptions scan;              // diagonal recurrences
};

struct LayerRunTiming {
  double kernelMs = 0;  // GPU time of every dispatch (timestamps; 0 without them)
  double wallMs = 0;    // uploads, kernels and downloads, as the host saw them
  int tiles = 0;
};

class LayerRunner {
 public:
  // Uploads the weights. Throws lsrl::Error for a program the kernels cannot run.
  LayerRunner(Device& device, const batch::LayerProgram& program);
  ~LayerRunner();
  LayerRunner(const LayerRunner&) = delete;
  LayerRunner& operator=(const LayerRunner&) = delete;

  // tokens: [B][T][inputWidth]; returns [B][T][outputWidth]. With `layerOutputs`, every
  // layer's output is copied back too ([layer][b][t][width], as the CPU runner's). Throws
  // lsrl::Error on a shape mismatch (the message names expected and actual sizes).
  std::vector<float> run(const batch::SeriesShape& shape, std::span<const float> tokens,
                         const LayerRunOptions& options = {}, LayerRunTiming* timing = nullptr,
                         std::vector<std::vector<float>>* layerOutputs = nullptr);

 private:
  struct Weights;
  struct TileState;
  // Appends layer k's dispatches for a tile of nb sequences.
  void recordLayer(Batch& batch, size_t k, int nb, int steps, TileState& tile,
                   const batch::BufferPlan& plan, ScanKernels& scans, GatedCellKernels& cells,
                   const LayerRunOptions& options);
  Device& dev_;
  const batch::LayerProgram program_;  // a copy: the runner may outlive the caller's
  std::vector<Weights> weights_;
};

}  // namespace lsrl::gpu
