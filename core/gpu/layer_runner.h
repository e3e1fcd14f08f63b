// The Vulkan batch runner: a LayerProgram (core/float_batch/layer_program.h) over B sequences of
// T tokens, the twin of core/float_batch/cpu_runner.h — the same layers in the same order, in the
// same buffers (float_batch::planBuffers), with the device kernels (matvec_kernels.h,
// elementwise_kernels.h, scan_kernels.h, gated_cell_kernels.h, conv_lru_kernels.h), in fp32.
// Weights are uploaded once; sequences go through in tiles whose buffers fit the device's
// storage-buffer range, each tile's layers recorded into one submission.
// BasicLayerRunner<double> (LayerRunner64) runs the same in fp64 with the shaders' `_f64`
// twins (real.h): the layers of compiled paths only, on devices with shaderFloat64
// (docs/vulkan.md, "Float64 on the device").
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/float_batch/layer_program.h"
#include "core/gpu/device.h"
#include "core/gpu/gated_cell_kernels.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/path_fusion.h"
#include "core/gpu/real.h"
#include "core/gpu/scan_kernels.h"

namespace lsrl::gpu {

class ScanCalibration;

struct LayerRunOptions {
  size_t tileBytes = 32u << 20;  // per buffer; capped by the device's range
  ScanOptions scan;              // diagonal recurrences
  // When set (and of the runner's precision), diagonal scans whose options are Auto run
  // with the path and schedule it measured fastest for their shape (scan_calibration.h).
  ScanCalibration* calibration = nullptr;
  // A compiled path runs fused (path_fusion.h: one dispatch per tile where the device's
  // loop budget allows) when this says so (Auto: on GPUs), unless the scan options name a
  // path or schedule or every layer's output is asked for; the layered run is its twin.
  PathFusion fusion = PathFusion::Auto;
};

// Asking for timing records timestamps around every dispatch (a run without it records
// none).
struct LayerRunTiming {
  double kernelMs = 0;  // GPU time of every dispatch (timestamps; 0 without them)
  double wallMs = 0;    // uploads, kernels and downloads, as the host saw them
  int tiles = 0;
  int slots = 0;  // tiles in flight at once (2 when there are several tiles)
  bool fused = false;
  size_t dispatches = 0;
};

template <class Scalar>
class BasicLayerRunner {
 public:
  // Uploads the weights. Throws lsrl::Error for a program the kernels cannot run (in fp64:
  // a layer other than Linear, Relu, Multi, LinState, Add, Mul, or a device without
  // shaderFloat64; the message names the layer or the device).
  BasicLayerRunner(Device& device, const float_batch::BasicLayerProgram<Scalar>& program);
  ~BasicLayerRunner();
  BasicLayerRunner(const BasicLayerRunner&) = delete;
  BasicLayerRunner& operator=(const BasicLayerRunner&) = delete;

  // tokens: [B][T][inputWidth]; returns [B][T][outputWidth]. With `layerOutputs`, every
  // layer's output is copied back too ([layer][b][t][width], as the CPU runner's). Throws
  // lsrl::Error on a shape mismatch (the message names expected and actual sizes).
  // Tiles are pipelined: while the device runs one, the host writes the next one's tokens
  // into a second set of buffers and reads the one before back. The tile buffers (and the
  // initial states in them) stay on the device for the next call of the same shape, so
  // steady-state calls and tiles create no buffers or descriptor pools.
  std::vector<Scalar> run(const float_batch::SeriesShape& shape, std::span<const Scalar> tokens,
                          const LayerRunOptions& options = {}, LayerRunTiming* timing = nullptr,
                          std::vector<std::vector<Scalar>>* layerOutputs = nullptr);

 private:
  static constexpr Real kReal = realOf<Scalar>();
  struct Weights;
  struct TileState;
  // What the resident tile buffers were made for; another shape remakes them.
  struct TileShape {
    int sequences = 0, steps = 0;
    bool everyLayer = false;
    bool fused = false;
    bool operator==(const TileShape&) const = default;
  };
  // Whether this run goes through the fused kernel (made on first use).
  bool runsFused(const LayerRunOptions& options, bool everyLayer);
  // Appends layer k's dispatches for a tile of nb sequences.
  void recordLayer(Batch& batch, size_t k, int nb, int steps, TileState& tile,
                   const float_batch::BufferPlan& plan, ScanKernels& scans, GatedCellKernels& cells,
                   const LayerRunOptions& options);
  // A tile's buffers for `shape`: tokens, the plan's buffers, scratch, initial states.
  std::unique_ptr<TileState> makeTile(const TileShape& shape, const float_batch::BufferPlan& plan,
                                      ScanKernels& scans, const LayerRunOptions& options);
  Device& dev_;
  const float_batch::BasicLayerProgram<Scalar>
      program_;  // a copy: the runner may outlive the caller's
  std::vector<Weights> weights_;
  bool fusionTried_ = false;          // FusedPath::make has run
  std::unique_ptr<FusedPath> fused_;  // null: the program does not fuse on this device
  TileShape tileShape_;
  std::vector<std::unique_ptr<TileState>> tiles_;  // resident between calls
};

using LayerRunner = BasicLayerRunner<float>;
using LayerRunner64 = BasicLayerRunner<double>;

}  // namespace lsrl::gpu
