#include "core/vulkan/layer_runner.h"

#include <algorithm>
#include <chrono>

#include "core/util/error.h"
#include "core/vulkan/elementwise_kernels.h"

namespace lsrl::gpu {

using batch::Layer;
using batch::Recurrence;

// One layer's device data: its matrix (Linear, or a LinState's drive), and for a LinState
// its transition (diagonal, blocks or a CSR matrix) and initial state.
struct LayerRunner::Weights {
  DeviceCsr matrix;
  std::shared_ptr<Buffer> transition;  // Diagonal: a[c]; Blocks2: [k][2][2]
  DeviceCsr state;                     // General
  std::shared_ptr<Buffer> init;        // [C]
};

namespace {

std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const float> v) {
  auto b = dev.buffer(std::max<size_t>(v.size(), 1) * sizeof(float));
  dev.upload(*b, v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace

LayerRunner::LayerRunner(Device& device, const batch::LayerProgram& program)
    : dev_(device), program_(program) {
  for (const Layer& layer : program.layers) {
    Weights w;
    if (layer.kind == Layer::Kind::Linear || layer.kind == Layer::Kind::LinState)
      w.matrix = uploadCsr(dev_, layer.A, layer.bias);
    if (layer.kind == Layer::Kind::LinState) {
      w.init = uploadFloats(dev_, layer.init);
      switch (layer.recurrence) {
        case Recurrence::Diagonal:
          w.transition = uploadFloats(dev_, layer.diagonal);
          break;
        case Recurrence::Blocks2:
          w.transition = uploadFloats(dev_, layer.blocks);
          break;
        case Recurrence::General:
          w.state = uploadCsr(dev_, layer.state, {});
          break;
      }
    }
    weights_.push_back(std::move(w));
  }
}

LayerRunner::~LayerRunner() = default;

std::vector<float> LayerRunner::run(const batch::SeriesShape& shape, std::span<const float> tokens,
                                    const LayerRunOptions& options, LayerRunTiming* timing,
                                    std::vector<std::vector<float>>* layerOutputs) {
  const auto start = std::chrono::steady_clock::now();
  if (shape.batch < 1 || shape.steps < 1)
    throw Error("vulkan runner: " + std::to_string(shape.batch) + " sequences of " +
                std::to_string(shape.steps) + " tokens (need at least 1 of each)");
  if (shape.channels != program_.inputWidth)
    throw Error("vulkan runner: tokens are " + std::to_string(shape.channels) +
                " wide, the model reads " + std::to_string(program_.inputWidth));
  const size_t steps = static_cast<size_t>(shape.steps);
  const size_t inPerSeq = steps * static_cast<size_t>(shape.channels);
  const size_t outPerSeq = steps * static_cast<size_t>(program_.outputWidth);
  if (tokens.size() != inPerSeq * static_cast<size_t>(shape.batch))
    throw Error("vulkan runner: expected " +
                std::to_string(inPerSeq * static_cast<size_t>(shape.batch)) +
                " token values (B·T·width), got " + std::to_string(tokens.size()));

  // Sequences per tile: every buffer (tile × T × widest layer floats) within the limits.
  const size_t width = static_cast<size_t>(std::max(1, program_.maxWidth()));
  const size_t seqBytes = steps * width * sizeof(float);
  const size_t cap = std::min<size_t>(options.tileBytes, dev_.info().maxStorageBufferRange);
  if (seqBytes > cap)
    throw Error("vulkan runner: one sequence of " + std::to_string(shape.steps) + " tokens needs " +
                std::to_string(seqBytes) + "-byte buffers, over the " + std::to_string(cap) +
                "-byte limit (shorten the sequences)");
  const int tile =
      static_cast<int>(std::clamp<size_t>(cap / seqBytes, 1, static_cast<size_t>(shape.batch)));

  ScanKernels scans(dev_);
  std::vector<float> out(outPerSeq * static_cast<size_t>(shape.batch));
  auto bufA = dev_.buffer(static_cast<size_t>(tile) * seqBytes);
  auto bufB = dev_.buffer(static_cast<size_t>(tile) * seqBytes);
  auto bufU = dev_.buffer(static_cast<size_t>(tile) * seqBytes);
  std::shared_ptr<Buffer> scratch;
  // Tracing: every layer writes its own buffer (nothing overwritten), downloaded per tile.
  std::vector<std::shared_ptr<Buffer>> layerBuffers;
  if (layerOutputs != nullptr) {
    layerOutputs->clear();
    for (const Layer& layer : program_.layers) {
      const size_t floats = steps * static_cast<size_t>(layer.outWidth);
      layerOutputs->emplace_back(floats * static_cast<size_t>(shape.batch));
      layerBuffers.push_back(
          dev_.buffer(std::max<size_t>(floats * static_cast<size_t>(tile), 1) * sizeof(float)));
    }
  }
  double kernelMs = 0;
  int tiles = 0;
  for (int b0 = 0; b0 < shape.batch; b0 += tile) {
    const int nb = std::min(tile, shape.batch - b0);
    const size_t rows = static_cast<size_t>(nb) * steps;
    dev_.upload(*bufA, tokens.data() + inPerSeq * static_cast<size_t>(b0),
                inPerSeq * static_cast<size_t>(nb) * sizeof(float));
    Batch batch = dev_.batch();
    Buffer* cur = bufA.get();
    Buffer* next = bufB.get();
    // Initial states repeated per sequence, kept alive until the batch has run.
    std::vector<std::shared_ptr<Buffer>> keep;
    for (size_t k = 0; k < program_.layers.size(); ++k) {
      const Layer& layer = program_.layers[k];
      const Weights& w = weights_[k];
      if (!layerBuffers.empty()) next = layerBuffers[k].get();
      switch (layer.kind) {
        case Layer::Kind::Linear:
          recordCsrMatvec(dev_, batch, w.matrix, *cur, *next, rows);
          std::swap(cur, next);
          break;
        case Layer::Kind::Relu:
          if (layerBuffers.empty()) {
            recordRelu(dev_, batch, *cur, *cur, rows * static_cast<size_t>(layer.outWidth));
          } else {
            recordRelu(dev_, batch, *cur, *next, rows * static_cast<size_t>(layer.outWidth));
            std::swap(cur, next);
          }
          break;
        case Layer::Kind::Multi:
          recordMulti(dev_, batch, *cur, *next, rows, static_cast<size_t>(layer.outWidth));
          std::swap(cur, next);
          break;
        case Layer::Kind::LinState: {
          recordCsrMatvec(dev_, batch, w.matrix, *cur, *bufU, rows);
          std::vector<float> h0;
          for (int b = 0; b < nb; ++b) h0.insert(h0.end(), layer.init.begin(), layer.init.end());
          keep.push_back(uploadFloats(dev_, h0));
          const Buffer* h0Buffer = keep.back().get();
          const batch::SeriesShape series{nb, shape.steps, layer.outWidth};
          switch (layer.recurrence) {
            case Recurrence::Diagonal: {
              const DiagScanShape s{series, {0, 0}, false};
              const size_t need = scans.diagScanScratchBytes(s, options.scan);
              if (need > 0 && (!scratch || scratch->bytes() < need)) scratch = dev_.buffer(need);
              scans.recordDiagScan(batch,
                                   {w.transition.get(), bufU.get(), h0Buffer, next, scratch.get()},
                                   s, options.scan);
              break;
            }
            case Recurrence::Blocks2:
              scans.recordBlockScan2(batch, *w.transition, *bufU, h0Buffer, *next, series);
              break;
            case Recurrence::General:
              scans.recordLinearRecurrence(
                  batch, {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get()},
                  w.state.nonZeros, *bufU, h0Buffer, *next, series);
              break;
          }
          std::swap(cur, next);
          break;
        }
      }
    }
    for (const double ms : dev_.run(batch)) kernelMs += ms;
    for (size_t k = 0; k < layerBuffers.size(); ++k) {
      const size_t floats = rows * static_cast<size_t>(program_.layers[k].outWidth);
      dev_.download(
          *layerBuffers[k],
          (*layerOutputs)[k].data() + static_cast<size_t>(b0) * steps * program_.layers[k].outWidth,
          floats * sizeof(float));
    }
    dev_.download(*cur, out.data() + outPerSeq * static_cast<size_t>(b0),
                  outPerSeq * static_cast<size_t>(nb) * sizeof(float));
    ++tiles;
  }
  if (timing != nullptr) {
    timing->kernelMs = kernelMs;
    timing->tiles = tiles;
    timing->wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return out;
}

}  // namespace lsrl::gpu
