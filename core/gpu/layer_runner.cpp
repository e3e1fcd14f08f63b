#include "core/gpu/layer_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "core/gpu/conv_lru_kernels.h"
#include "core/gpu/elementwise_kernels.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/scan_calibration.h"
#include "core/util/error.h"

namespace lsrl::gpu {

using float_batch::LayerKind;
using float_batch::Recurrence;

// One layer's device data: its matrix (Linear, a LinState's drive), the recurrence's
// transition (a diagonal, blocks, or W_hh / a general S as CSR), and the small vectors
// some kinds read (Conv1d taps and bias, GRU / LSTM b_hh, the RG-LRU decay base).
template <class Scalar>
struct BasicLayerRunner<Scalar>::Weights {
  DeviceCsr matrix;
  std::shared_ptr<Buffer> transition;  // Diagonal: a[c]; Blocks2: [k][2][2]; RgLru: base
  DeviceCsr state;                     // General; GruCell / LstmCell: W_hh
  std::shared_ptr<Buffer> taps;        // Conv1d
  std::shared_ptr<Buffer> bias;        // Conv1d bias; GruCell / LstmCell: b_hh
};

namespace {

// A per-sequence vector (an initial state) repeated for `batch` sequences, on the device.
template <class Scalar>
std::shared_ptr<Buffer> uploadRepeated(Device& dev, const std::vector<Scalar>& v, int batch) {
  std::vector<Scalar> all;
  all.reserve(static_cast<size_t>(batch) * v.size());
  for (int b = 0; b < batch; ++b) all.insert(all.end(), v.begin(), v.end());
  return uploadFloats(dev, std::span<const Scalar>(all));
}

bool isRecurrence(LayerKind kind) {
  return kind == LayerKind::LinState || kind == LayerKind::GruCell || kind == LayerKind::LstmCell;
}

// The kinds a compiled path graph becomes (float_batch::layerProgramFromPath), the ones with
// fp64 kernels.
bool hasFp64Kernels(LayerKind kind) {
  switch (kind) {
    case LayerKind::Linear:
    case LayerKind::Relu:
    case LayerKind::Multi:
    case LayerKind::LinState:
    case LayerKind::Add:
    case LayerKind::Mul:
      return true;
    case LayerKind::Conv1d:
    case LayerKind::RgLru:
    case LayerKind::GruCell:
    case LayerKind::LstmCell:
      return false;
  }
  return false;
}

// The diagonal scan a layer runs over nb sequences of `steps` tokens, if it runs one: a
// diagonal LinState's constant transition, or the RG-LRU's α varying with every step.
template <class Scalar>
std::optional<DiagScanShape> diagScanShapeOf(const float_batch::BasicLayer<Scalar>& layer, int nb,
                                             int steps) {
  const float_batch::SeriesShape series{nb, steps, layer.outWidth};
  if (layer.kind == LayerKind::LinState && layer.recurrence == Recurrence::Diagonal)
    return DiagScanShape{series, {0, 0}, false};
  if (layer.kind == LayerKind::RgLru)
    return DiagScanShape{
        series,
        {static_cast<long long>(steps) * layer.outWidth, static_cast<long long>(layer.outWidth)},
        false};
  return std::nullopt;
}

// The scan options a diagonal scan of `shape` runs with: the calibration's choice when
// there is one of this precision, else the caller's.
ScanOptions scanOptionsFor(const LayerRunOptions& options, const DiagScanShape& shape, Real real) {
  if (options.calibration != nullptr && options.calibration->real() == real)
    return options.calibration->choose(shape, options.scan);
  return options.scan;
}

}  // namespace

template <class Scalar>
BasicLayerRunner<Scalar>::BasicLayerRunner(Device& device,
                                           const float_batch::BasicLayerProgram<Scalar>& program)
    : dev_(device), program_(program) {
  program_.validate();
  requireReal(dev_.info(), kReal);
  for (size_t k = 0; k < program_.layers.size() && kReal == Real::F64; ++k)
    if (!hasFp64Kernels(program_.layers[k].kind))
      throw Error("vulkan runner: layer " + std::to_string(k) + " (" + program_.layers[k].source +
                  ") has no fp64 kernels: fp64 runs compiled models' layers (Linear, ReLU, "
                  "Multi, LinState, Add, Mul); use --precision fp32");
  for (const auto& layer : program_.layers) {
    Weights w;
    switch (layer.kind) {
      case LayerKind::Linear:
        w.matrix = uploadCsr(dev_, layer.A, layer.bias);
        break;
      case LayerKind::LinState:
        w.matrix = uploadCsr(dev_, layer.A, layer.bias);
        if (layer.recurrence == Recurrence::Diagonal)
          w.transition = uploadFloats(dev_, layer.diagonal);
        else if (layer.recurrence == Recurrence::Blocks2)
          w.transition = uploadFloats(dev_, layer.blocks);
        else
          w.state = uploadCsr(dev_, layer.state, {});
        break;
      case LayerKind::Conv1d:
        w.taps = uploadFloats(dev_, layer.taps);
        w.bias = uploadFloats(dev_, layer.bias);
        break;
      case LayerKind::RgLru:
        w.transition = uploadFloats(dev_, layer.diagonal);
        break;
      case LayerKind::GruCell:
      case LayerKind::LstmCell:
        w.state = uploadCsr(dev_, layer.state, {});
        w.bias = uploadFloats(dev_, layer.bias);
        break;
      case LayerKind::Relu:
      case LayerKind::Multi:
      case LayerKind::Add:
      case LayerKind::Mul:
        break;
    }
    weights_.push_back(std::move(w));
  }
}

template <class Scalar>
bool BasicLayerRunner<Scalar>::runsFused(const LayerRunOptions& options, bool everyLayer) {
  const bool defaultScans =
      options.scan.path == ScanPath::Auto && options.scan.schedule == ScanSchedule::Auto;
  const bool wanted = options.fusion == PathFusion::On ||
                      (options.fusion == PathFusion::Auto && fusesByDefault(dev_.info()));
  if (everyLayer || !wanted || !defaultScans) return false;
  // Packed on first use, so runs that never fuse (a CPU driver's) never pack the program.
  if (!fusionTried_) {
    fused_ = FusedPath::make(dev_, program_);
    fusionTried_ = true;
  }
  return fused_ != nullptr;
}

template <class Scalar>
BasicLayerRunner<Scalar>::~BasicLayerRunner() = default;

// One tile's device buffers: the tokens, one per buffer of the plan, and the scratch some
// kinds need (a LinState's drive, the RG-LRU's a and b, the chunked scan's carries).
template <class Scalar>
struct BasicLayerRunner<Scalar>::TileState {
  std::shared_ptr<Buffer> tokens;
  std::vector<std::shared_ptr<Buffer>> buffers;
  std::shared_ptr<Buffer> drive, lruA, lruB, scratch;
  // Fused: the output and the states between a tile's dispatches (no layer buffers).
  std::shared_ptr<Buffer> fusedOut, carry;
  // Per layer: the initial state (and the LSTM's cell) repeated for the tile's sequences.
  std::vector<std::shared_ptr<Buffer>> init, cellInit;
  // Host-visible copies of the tokens and the output, where the host cannot map those.
  std::shared_ptr<Buffer> stagingIn, stagingOut;
  // Scratch outgrown while recording, kept alive until the batch has run.
  std::vector<std::shared_ptr<Buffer>> keep;
  // The tile in flight: its submission and its sequences.
  Submission inFlight;
  int first = 0, count = 0;

  const Buffer& input(const float_batch::BufferPlan& plan,
                      const float_batch::BasicLayer<Scalar>& layer, size_t i) const {
    const int in = layer.inputs[i];
    if (in == float_batch::kTokens) return *tokens;
    return *buffers[static_cast<size_t>(plan.bufferOf[static_cast<size_t>(in)])];
  }
  const Buffer& result(const float_batch::BufferPlan& plan) const {
    if (fusedOut) return *fusedOut;
    return plan.bufferOf.empty() ? *tokens : *buffers[static_cast<size_t>(plan.bufferOf.back())];
  }
};

template <class Scalar>
void BasicLayerRunner<Scalar>::recordLayer(Batch& batch, size_t k, int nb, int steps,
                                           TileState& tile, const float_batch::BufferPlan& plan,
                                           ScanKernels& scans, GatedCellKernels& cells,
                                           const LayerRunOptions& options) {
  const float_batch::BasicLayer<Scalar>& layer = program_.layers[k];
  const Weights& w = weights_[k];
  const size_t rows = static_cast<size_t>(nb) * static_cast<size_t>(steps);
  const size_t count = rows * static_cast<size_t>(layer.outWidth);
  const float_batch::SeriesShape series{nb, steps, layer.outWidth};
  auto in = [&](size_t i) -> const Buffer& { return tile.input(plan, layer, i); };
  Buffer& out = *tile.buffers[static_cast<size_t>(plan.bufferOf[k])];
  auto diagScan = [&](const DiagScanBuffers& buffers) {
    const DiagScanShape shape = *diagScanShapeOf(layer, nb, steps);
    const ScanOptions scanOptions = scanOptionsFor(options, shape, kReal);
    const size_t need = scans.diagScanScratchBytes(shape, scanOptions);
    if (need > 0 && (!tile.scratch || tile.scratch->bytes() < need)) {
      // Earlier dispatches of this batch still read the smaller buffer.
      if (tile.scratch) tile.keep.push_back(tile.scratch);
      tile.scratch = dev_.buffer(need);
    }
    DiagScanBuffers withScratch = buffers;
    withScratch.scratch = tile.scratch.get();
    scans.recordDiagScan(batch, withScratch, shape, scanOptions);
  };
  const std::shared_ptr<Buffer>& h0 = tile.init[k];
  switch (layer.kind) {
    case LayerKind::Linear:
      recordCsrMatvec(dev_, batch, w.matrix, in(0), out, rows);
      break;
    case LayerKind::Relu:
      recordRelu(dev_, batch, in(0), out, count, kReal);
      break;
    case LayerKind::Multi:
      recordMulti(dev_, batch, in(0), out, rows, static_cast<size_t>(layer.outWidth), kReal);
      break;
    case LayerKind::Add:
      recordAdd(dev_, batch, in(0), in(1), out, count, kReal);
      break;
    case LayerKind::Mul:
      recordMul(dev_, batch, in(0), in(1), out, count, kReal);
      break;
    case LayerKind::LinState:
      recordCsrMatvec(dev_, batch, w.matrix, in(0), *tile.drive, rows);
      switch (layer.recurrence) {
        case Recurrence::Diagonal:
          diagScan({w.transition.get(), tile.drive.get(), h0.get(), &out, nullptr});
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
    case LayerKind::Conv1d:
      recordCausalConv1d(dev_, batch, *w.taps, layer.convWidth, *w.bias, in(0), out, series);
      break;
    case LayerKind::RgLru:
      recordRgLruInputs(dev_, batch, *w.transition, layer.lruC, in(1), in(2), in(0), *tile.lruA,
                        *tile.lruB, series);
      diagScan({tile.lruA.get(), tile.lruB.get(), nullptr, &out, nullptr});
      break;
    case LayerKind::GruCell:
      cells.recordGru(
          batch,
          {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get(), w.state.maxRowNonZeros},
          w.state.nonZeros, *w.bias, in(0), h0.get(), out, series, layer.gruRule);
      break;
    case LayerKind::LstmCell: {
      cells.recordLstm(
          batch,
          {w.state.rowPtr.get(), w.state.col.get(), w.state.val.get(), w.state.maxRowNonZeros},
          w.state.nonZeros, *w.bias, in(0), h0.get(), tile.cellInit[k].get(), out, series);
      break;
    }
  }
}

template <class Scalar>
std::unique_ptr<typename BasicLayerRunner<Scalar>::TileState> BasicLayerRunner<Scalar>::makeTile(
    const TileShape& shape, const float_batch::BufferPlan& plan, ScanKernels& scans,
    const LayerRunOptions& options) {
  auto tile = std::make_unique<TileState>();
  const size_t rows = static_cast<size_t>(shape.sequences) * static_cast<size_t>(shape.steps);
  auto values = [&](int w) {
    return dev_.buffer(std::max<size_t>(rows * static_cast<size_t>(w), 1) * sizeof(Scalar));
  };
  tile->tokens = values(program_.inputWidth);
  if (shape.fused) {
    tile->fusedOut = values(program_.outputWidth);
    tile->carry = dev_.buffer(fused_->carryBytes(static_cast<uint32_t>(shape.sequences)));
    if (dev_.mapped(*tile->tokens) == nullptr)
      tile->stagingIn = dev_.stagingBuffer(tile->tokens->bytes());
    if (dev_.mapped(*tile->fusedOut) == nullptr)
      tile->stagingOut = dev_.stagingBuffer(tile->fusedOut->bytes());
    return tile;
  }
  for (const int w : plan.bufferWidth) tile->buffers.push_back(values(w));
  int driveWidth = 0, lruWidth = 0;
  size_t scratchBytes = 0;
  for (const auto& layer : program_.layers) {
    if (layer.kind == LayerKind::LinState) driveWidth = std::max(driveWidth, layer.outWidth);
    if (layer.kind == LayerKind::RgLru) lruWidth = std::max(lruWidth, layer.outWidth);
    if (const auto scan = diagScanShapeOf(layer, shape.sequences, shape.steps))
      scratchBytes = std::max(
          scratchBytes, scans.diagScanScratchBytes(*scan, scanOptionsFor(options, *scan, kReal)));
    tile->init.push_back(
        isRecurrence(layer.kind) ? uploadRepeated(dev_, layer.init, shape.sequences) : nullptr);
    tile->cellInit.push_back(layer.kind == LayerKind::LstmCell
                                 ? uploadRepeated(dev_, layer.cellInit, shape.sequences)
                                 : nullptr);
  }
  if (driveWidth > 0) tile->drive = values(driveWidth);
  if (lruWidth > 0) {
    tile->lruA = values(lruWidth);
    tile->lruB = values(lruWidth);
  }
  if (scratchBytes > 0) tile->scratch = dev_.buffer(scratchBytes);
  if (dev_.mapped(*tile->tokens) == nullptr)
    tile->stagingIn = dev_.stagingBuffer(tile->tokens->bytes());
  if (dev_.mapped(tile->result(plan)) == nullptr)
    tile->stagingOut = dev_.stagingBuffer(tile->result(plan).bytes());
  return tile;
}

template <class Scalar>
std::vector<Scalar> BasicLayerRunner<Scalar>::run(const float_batch::SeriesShape& shape,
                                                  std::span<const Scalar> tokens,
                                                  const LayerRunOptions& options,
                                                  LayerRunTiming* timing,
                                                  std::vector<std::vector<Scalar>>* layerOutputs) {
  const auto start = std::chrono::steady_clock::now();
  if (shape.batch < 1 || shape.steps < 1)
    throw Error("vulkan runner: " + std::to_string(shape.batch) + " sequences of " +
                std::to_string(shape.steps) + " tokens (need at least 1 of each)");
  if (shape.channels != program_.inputWidth)
    throw Error("vulkan runner: tokens are " + std::to_string(shape.channels) +
                " wide, the model reads " + std::to_string(program_.inputWidth));
  float_batch::checkHorizon(program_, shape.steps, "vulkan runner");
  const size_t steps = static_cast<size_t>(shape.steps);
  const size_t inPerSeq = steps * static_cast<size_t>(shape.channels);
  const size_t outPerSeq = steps * static_cast<size_t>(program_.outputWidth);
  if (tokens.size() != inPerSeq * static_cast<size_t>(shape.batch))
    throw Error("vulkan runner: expected " +
                std::to_string(inPerSeq * static_cast<size_t>(shape.batch)) +
                " token values (B·T·width), got " + std::to_string(tokens.size()));

  const bool fused = runsFused(options, layerOutputs != nullptr);
  // Sequences per tile: every buffer (tile × T × widest layer values) within the limits;
  // fused, only the tokens and the output are buffers.
  const size_t width =
      static_cast<size_t>(fused ? std::max({1, program_.inputWidth, program_.outputWidth})
                                : std::max(1, program_.maxWidth()));
  const size_t seqBytes = steps * width * sizeof(Scalar);
  const size_t cap = std::min<size_t>(options.tileBytes, dev_.info().maxStorageBufferRange);
  if (seqBytes > cap)
    throw Error("vulkan runner: one sequence of " + std::to_string(shape.steps) + " tokens needs " +
                std::to_string(seqBytes) + "-byte buffers, over the " + std::to_string(cap) +
                "-byte limit (shorten the sequences)");
  const int tileSeqs =
      static_cast<int>(std::clamp<size_t>(cap / seqBytes, 1, static_cast<size_t>(shape.batch)));
  const int tileCount = (shape.batch + tileSeqs - 1) / tileSeqs;

  // Two tiles in flight when there are several: the host fills one while the device runs
  // the other. The buffers stay for the next call of this shape.
  const float_batch::BufferPlan plan = float_batch::planBuffers(program_, layerOutputs != nullptr);
  ScanKernels scans(dev_, kReal);
  GatedCellKernels cells(dev_);
  const TileShape wanted{tileSeqs, shape.steps, layerOutputs != nullptr, fused};
  if (!(wanted == tileShape_)) {
    tiles_.clear();
    tileShape_ = wanted;
  }
  const size_t slots = tileCount > 1 ? 2 : 1;
  while (tiles_.size() < slots) tiles_.push_back(makeTile(wanted, plan, scans, options));

  if (layerOutputs != nullptr) {
    layerOutputs->clear();
    for (const auto& layer : program_.layers)
      layerOutputs->emplace_back(steps * static_cast<size_t>(layer.outWidth) *
                                 static_cast<size_t>(shape.batch));
  }
  std::vector<Scalar> out(outPerSeq * static_cast<size_t>(shape.batch));
  double kernelMs = 0;
  size_t dispatches = 0;
  // Waits for the tile's submission and copies its results out.
  auto collect = [&](TileState& tile) {
    for (const double ms : tile.inFlight.wait()) kernelMs += ms;
    const HostPhaseTimer unpack(dev_, HostPhase::Unpack);
    const size_t first = static_cast<size_t>(tile.first), rows = tile.count * steps;
    for (size_t k = 0; k < program_.layers.size() && layerOutputs != nullptr; ++k) {
      const size_t w = static_cast<size_t>(program_.layers[k].outWidth);
      dev_.download(*tile.buffers[static_cast<size_t>(plan.bufferOf[k])],
                    (*layerOutputs)[k].data() + first * steps * w, rows * w * sizeof(Scalar));
    }
    const Buffer& result = tile.stagingOut ? *tile.stagingOut : tile.result(plan);
    std::memcpy(out.data() + outPerSeq * first, dev_.mapped(result),
                outPerSeq * static_cast<size_t>(tile.count) * sizeof(Scalar));
  };
  try {
    for (int t = 0; t < tileCount; ++t) {
      TileState& tile = *tiles_[static_cast<size_t>(t) % slots];
      if (tile.inFlight.pending()) collect(tile);
      tile.first = t * tileSeqs;
      tile.count = std::min(tileSeqs, shape.batch - tile.first);
      const size_t inBytes = inPerSeq * static_cast<size_t>(tile.count) * sizeof(Scalar);
      {
        const HostPhaseTimer pack(dev_, HostPhase::Pack);
        std::memcpy(dev_.mapped(tile.stagingIn ? *tile.stagingIn : *tile.tokens),
                    tokens.data() + inPerSeq * static_cast<size_t>(tile.first), inBytes);
      }
      Batch batch = dev_.batch(timing != nullptr ? Timing::PerDispatch : Timing::Off);
      {
        const HostPhaseTimer record(dev_, HostPhase::Record);
        if (tile.stagingIn) batch.copy(*tile.stagingIn, *tile.tokens, inBytes);
        tile.keep.clear();
        if (fused)
          fused_->record(batch, *tile.tokens, *tile.fusedOut, *tile.carry,
                         static_cast<uint32_t>(tile.count), static_cast<uint32_t>(shape.steps));
        else
          for (size_t k = 0; k < program_.layers.size(); ++k)
            recordLayer(batch, k, tile.count, shape.steps, tile, plan, scans, cells, options);
        if (tile.stagingOut)
          batch.copy(tile.result(plan), *tile.stagingOut,
                     outPerSeq * static_cast<size_t>(tile.count) * sizeof(Scalar));
      }
      dispatches += batch.dispatches();
      tile.inFlight = dev_.submit(batch);
    }
    // The last tiles, oldest first.
    for (int t = std::max(0, tileCount - static_cast<int>(slots)); t < tileCount; ++t)
      collect(*tiles_[static_cast<size_t>(t) % slots]);
  } catch (...) {
    tiles_.clear();  // waits for what is in flight; the next call starts afresh
    tileShape_ = {};
    throw;
  }
  if (timing != nullptr) {
    timing->kernelMs = kernelMs;
    timing->tiles = tileCount;
    timing->slots = static_cast<int>(slots);
    timing->fused = fused;
    timing->dispatches = dispatches;
    timing->wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return out;
}

template class BasicLayerRunner<float>;
template class BasicLayerRunner<double>;

}  // namespace lsrl::gpu
