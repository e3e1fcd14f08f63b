#include "core/vulkan/layer_runner.h"

#include <algorithm>
#include <chrono>

#include "core/util/error.h"
#include "core/vulkan/conv_lru_kernels.h"
#include "core/vulkan/elementwise_kernels.h"

namespace lsrl::gpu {

using batch::Layer;
using batch::Recurrence;

// One layer's device data: its matrix (Linear, a LinState's drive), the recurrence's
// transition (a diagonal, blocks, or W_hh / a general S as CSR), and the small vectors
// some kinds read (Conv1d taps and bias, GRU / LSTM b_hh, the RG-LRU decay base).
struct LayerRunner::Weights {
  DeviceCsr matrix;
  std::shared_ptr<Buffer> transition;  // Diagonal: a[c]; Blocks2: [k][2][2]; RgLru: base
  DeviceCsr state;                     // General; GruCell / LstmCell: W_hh
  std::shared_ptr<Buffer> taps;        // Conv1d
  std::shared_ptr<Buffer> bias;        // Conv1d bias; GruCell / LstmCell: b_hh
};

namespace {

std::shared_ptr<Buffer> uploadFloats(Device& dev, std::span<const float> v) {
  auto b = dev.buffer(std::max<size_t>(v.size(), 1) * sizeof(float));
  dev.upload(*b, v.data(), v.size() * sizeof(float));
  return b;
}

// A per-sequence vector (an initial state) repeated for `batch` sequences, on the device.
std::shared_ptr<Buffer> uploadRepeated(Device& dev, const std::vector<float>& v, int batch) {
  std::vector<float> all;
  all.reserve(static_cast<size_t>(batch) * v.size());
  for (int b = 0; b < batch; ++b) all.insert(all.end(), v.begin(), v.end());
  return uploadFloats(dev, all);
}

bool isRecurrence(const Layer& layer) {
  return layer.kind == Layer::Kind::LinState || layer.kind == Layer::Kind::GruCell ||
         layer.kind == Layer::Kind::LstmCell;
}

}  // namespace

LayerRunner::LayerRunner(Device& device, const batch::LayerProgram& program)
    : dev_(device), program_(program) {
  program_.validate();
  for (const Layer& layer : program_.layers) {
    Weights w;
    switch (layer.kind) {
      case Layer::Kind::Linear:
        w.matrix = uploadCsr(dev_, layer.A, layer.bias);
        break;
      case Layer::Kind::LinState:
        w.matrix = uploadCsr(dev_, layer.A, layer.bias);
        if (layer.recurrence == Recurrence::Diagonal)
          w.transition = uploadFloats(dev_, layer.diagonal);
        else if (layer.recurrence == Recurrence::Blocks2)
          w.transition = uploadFloats(dev_, layer.blocks);
        else
          w.state = uploadCsr(dev_, layer.state, {});
        break;
      case Layer::Kind::Conv1d:
        w.taps = uploadFloats(dev_, layer.taps);
        w.bias = uploadFloats(dev_, layer.bias);
        break;
      case Layer::Kind::RgLru:
        w.transition = uploadFloats(dev_, layer.diagonal);
        break;
      case Layer::Kind::GruCell:
      case Layer::Kind::LstmCell:
        w.state = uploadCsr(dev_, layer.state, {});
        w.bias = uploadFloats(dev_, layer.bias);
        break;
      case Layer::Kind::Relu:
      case Layer::Kind::Multi:
      case Layer::Kind::Add:
      case Layer::Kind::Mul:
        break;
    }
    weights_.push_back(std::move(w));
  }
}

LayerRunner::~LayerRunner() = default;

// One tile's device buffers: the tokens, one per buffer of the plan, and the scratch some
// kinds need (a LinState's drive, the RG-LRU's a and b, the chunked scan's carries).
struct LayerRunner::TileState {
  std::shared_ptr<Buffer> tokens;
  std::vector<std::shared_ptr<Buffer>> buffers;
  std::shared_ptr<Buffer> drive, lruA, lruB, scratch;
  // Initial states and outgrown scratch buffers, kept alive until the batch has run.
  std::vector<std::shared_ptr<Buffer>> keep;

  const Buffer& input(const batch::BufferPlan& plan, const Layer& layer, size_t i) const {
    const int in = layer.inputs[i];
    if (in == batch::kTokens) return *tokens;
    return *buffers[static_cast<size_t>(plan.bufferOf[static_cast<size_t>(in)])];
  }
};

void LayerRunner::recordLayer(Batch& batch, size_t k, int nb, int steps, TileState& tile,
                              const batch::BufferPlan& plan, ScanKernels& scans,
                              GatedCellKernels& cells, const LayerRunOptions& options) {
  const Layer& layer = program_.layers[k];
  const Weights& w = weights_[k];
  const size_t rows = static_cast<size_t>(nb) * static_cast<size_t>(steps);
  const size_t count = rows * static_cast<size_t>(layer.outWidth);
  const batch::SeriesShape series{nb, steps, layer.outWidth};
  auto in = [&](size_t i) -> const Buffer& { return tile.input(plan, layer, i); };
  Buffer& out = *tile.buffers[static_cast<size_t>(plan.bufferOf[k])];
  auto diagScan = [&](const DiagScanBuffers& buffers, const DiagScanShape& shape) {
    const size_t need = scans.diagScanScratchBytes(shape, options.scan);
    if (need > 0 && (!tile.scratch || tile.scratch->bytes() < need)) {
      // Earlier dispatches of this batch still read the smaller buffer.
      if (tile.scratch) tile.keep.push_back(tile.scratch);
      tile.scratch = dev_.buffer(need);
    }
    DiagScanBuffers withScratch = buffers;
    withScratch.scratch = tile.scratch.get();
    scans.recordDiagScan(batch, withScratch, shape, options.scan);
  };
  std::shared_ptr<Buffer> h0;
  if (isRecurrence(layer)) {
    tile.keep.push_back(uploadRepeated(dev_, layer.init, nb));
    h0 = tile.keep.back();
  }
  switch (layer.kind) {
    case Layer::Kind::Linear:
      recordCsrMatvec(dev_, batch, w.matrix, in(0), out, rows);
      break;
    case Layer::Kind::Relu:
      recordRelu(dev_, batch, in(0), out, count);
      break;
    case Layer::Kind::Multi:
      recordMulti(dev_, batch, in(0), out, rows, static_cast<size_t>(layer.outWidth));
      break;
    case Layer::Kind::Add:
      recordAdd(dev_, batch, in(0), in(1), out, count);
      break;
    case Layer::Kind::Mul:
      recordMul(dev_, batch, in(0), in(1), out, count);
      break;
    case Layer::Kind::LinState:
      recordCsrMatvec(dev_, batch, w.matrix, in(0), *tile.drive, rows);
      switch (layer.recurrence) {
        case Recurrence::Diagonal:
          diagScan({w.transition.get(), tile.drive.get(), h0.get(), &out, nullptr},
                   {series, {0, 0}, false});
          break;
        case Recurrence::Blocks2:
          scans.recordBlockScan2(batch, *w.transition, *tile.drive, h0.get(), out, series);
          break;
        case Recurrence::General:
          scans.recordLinearRecurrence(
              batch,
              {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get(), w.state.maxRowNonZeros},
              w.state.nonZeros, *tile.drive, h0.get(), out, series, layer.reluState);
          break;
      }
      break;
    case Layer::Kind::Conv1d:
      recordCausalConv1d(dev_, batch, *w.taps, layer.convWidth, *w.bias, in(0), out, series);
      break;
    case Layer::Kind::RgLru:
      recordRgLruInputs(dev_, batch, *w.transition, layer.lruC, in(1), in(2), in(0), *tile.lruA,
                        *tile.lruB, series);
      diagScan(
          {tile.lruA.get(), tile.lruB.get(), nullptr, &out, nullptr},
          {series,
           {static_cast<long long>(steps) * layer.outWidth, static_cast<long long>(layer.outWidth)},
           false});
      break;
    case Layer::Kind::GruCell:
      cells.recordGru(
          batch,
          {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get(), w.state.maxRowNonZeros},
          w.state.nonZeros, *w.bias, in(0), h0.get(), out, series, layer.gruRule);
      break;
    case Layer::Kind::LstmCell: {
      tile.keep.push_back(uploadRepeated(dev_, layer.cellInit, nb));
      cells.recordLstm(
          batch,
          {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get(), w.state.maxRowNonZeros},
          w.state.nonZeros, *w.bias, in(0), h0.get(), tile.keep.back().get(), out, series);
      break;
    }
  }
}

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
  batch::checkHorizon(program_, shape.steps, "vulkan runner");
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
  const int tileSeqs =
      static_cast<int>(std::clamp<size_t>(cap / seqBytes, 1, static_cast<size_t>(shape.batch)));

  // Every buffer holds tileSeqs sequences of its widest layer.
  const batch::BufferPlan plan = batch::planBuffers(program_, layerOutputs != nullptr);
  const size_t tileRows = static_cast<size_t>(tileSeqs) * steps;
  auto floats = [&](int w) {
    return dev_.buffer(std::max<size_t>(tileRows * static_cast<size_t>(w), 1) * sizeof(float));
  };
  TileState tile;
  tile.tokens = floats(program_.inputWidth);
  for (const int w : plan.bufferWidth) tile.buffers.push_back(floats(w));
  int driveWidth = 0, lruWidth = 0;
  for (const Layer& layer : program_.layers) {
    if (layer.kind == Layer::Kind::LinState) driveWidth = std::max(driveWidth, layer.outWidth);
    if (layer.kind == Layer::Kind::RgLru) lruWidth = std::max(lruWidth, layer.outWidth);
  }
  if (driveWidth > 0) tile.drive = floats(driveWidth);
  if (lruWidth > 0) {
    tile.lruA = floats(lruWidth);
    tile.lruB = floats(lruWidth);
  }
  if (layerOutputs != nullptr) {
    layerOutputs->clear();
    for (const Layer& layer : program_.layers)
      layerOutputs->emplace_back(steps * static_cast<size_t>(layer.outWidth) *
                                 static_cast<size_t>(shape.batch));
  }

  ScanKernels scans(dev_);
  GatedCellKernels cells(dev_);
  std::vector<float> out(outPerSeq * static_cast<size_t>(shape.batch));
  double kernelMs = 0;
  int tiles = 0;
  for (int b0 = 0; b0 < shape.batch; b0 += tileSeqs) {
    const int nb = std::min(tileSeqs, shape.batch - b0);
    const size_t rows = static_cast<size_t>(nb) * steps;
    dev_.upload(*tile.tokens, tokens.data() + inPerSeq * static_cast<size_t>(b0),
                inPerSeq * static_cast<size_t>(nb) * sizeof(float));
    Batch batch = dev_.batch();
    tile.keep.clear();
    for (size_t k = 0; k < program_.layers.size(); ++k)
      recordLayer(batch, k, nb, shape.steps, tile, plan, scans, cells, options);
    if (batch.size() > 0)
      for (const double ms : dev_.run(batch)) kernelMs += ms;
    for (size_t k = 0; k < program_.layers.size() && layerOutputs != nullptr; ++k) {
      const size_t w = static_cast<size_t>(program_.layers[k].outWidth);
      dev_.download(*tile.buffers[static_cast<size_t>(plan.bufferOf[k])],
                    (*layerOutputs)[k].data() + static_cast<size_t>(b0) * steps * w,
                    rows * w * sizeof(float));
    }
    const Buffer& result = program_.layers.empty()
                               ? *tile.tokens
                               : *tile.buffers[static_cast<size_t>(plan.bufferOf.back())];
    dev_.download(result, out.data() + outPerSeq * static_cast<size_t>(b0),
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
