#include "core/float_batch/cpu_runner.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "core/float_batch/conv_lru.h"
#include "core/float_batch/elementwise.h"
#include "core/float_batch/gated_cells.h"
#include "core/float_batch/matvec.h"
#include "core/float_batch/scan.h"
#include "core/util/error.h"

namespace lsrl::float_batch {

namespace {

// Repeats a per-sequence vector (an initial state) for `batch` sequences.
std::vector<float> repeated(const std::vector<float>& v, int batch) {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(batch) * v.size());
  for (int b = 0; b < batch; ++b) out.insert(out.end(), v.begin(), v.end());
  return out;
}

// A tile's buffers as the plan assigns them; `tokens` is the tile's input.
class TileBuffers {
 public:
  TileBuffers(const LayerProgram& program, const BufferPlan& plan, size_t rows,
              std::vector<float> tokens)
      : program_(program),
        plan_(plan),
        rows_(rows),
        tokens_(std::move(tokens)),
        buffers_(plan.bufferWidth.size()) {}

  std::span<const float> input(const Layer& layer, size_t i) const {
    const int in = layer.inputs[i];
    if (in == kTokens) return tokens_;
    return {buffers_[bufferIndex(static_cast<size_t>(in))].data(),
            rows_ * static_cast<size_t>(program_.layers[static_cast<size_t>(in)].outWidth)};
  }
  // Layer k's output, sized for it (in place: its first input's floats are kept).
  std::span<float> output(size_t k) {
    std::vector<float>& b = buffers_[bufferIndex(k)];
    b.resize(rows_ * static_cast<size_t>(program_.layers[k].outWidth));
    return b;
  }
  // Stores a kernel's result as layer k's output.
  void assign(size_t k, std::vector<float> values) { buffers_[bufferIndex(k)] = std::move(values); }
  std::span<const float> result() const {
    if (program_.layers.empty()) return tokens_;
    return layerOutput(program_.layers.size() - 1);
  }
  std::span<const float> layerOutput(size_t k) const {
    return {buffers_[bufferIndex(k)].data(),
            rows_ * static_cast<size_t>(program_.layers[k].outWidth)};
  }

 private:
  size_t bufferIndex(size_t k) const { return static_cast<size_t>(plan_.bufferOf[k]); }
  const LayerProgram& program_;
  const BufferPlan& plan_;
  size_t rows_;
  std::vector<float> tokens_;
  std::vector<std::vector<float>> buffers_;
};

// Runs layer k over `batch` whole sequences of `steps` tokens.
void runLayer(const Layer& layer, size_t k, int batch, int steps, TileBuffers& io) {
  const size_t rows = static_cast<size_t>(batch) * static_cast<size_t>(steps);
  const size_t width = static_cast<size_t>(layer.outWidth);
  const SeriesShape shape{batch, steps, layer.outWidth};
  switch (layer.kind) {
    case Layer::Kind::Linear:
      csrMatvec(layer.A, layer.bias, io.input(layer, 0), rows, io.output(k));
      break;
    case Layer::Kind::Relu:
      relu(io.input(layer, 0), io.output(k));
      break;
    case Layer::Kind::Multi:
      multi(io.input(layer, 0), rows, width, io.output(k));
      break;
    case Layer::Kind::Add:
      add(io.input(layer, 0), io.input(layer, 1), io.output(k));
      break;
    case Layer::Kind::Mul:
      mul(io.input(layer, 0), io.input(layer, 1), io.output(k));
      break;
    case Layer::Kind::LinState: {
      std::vector<float> drive(rows * width);
      csrMatvec(layer.A, layer.bias, io.input(layer, 0), rows, drive);
      const std::vector<float> h0 = repeated(layer.init, batch);
      switch (layer.recurrence) {
        case Recurrence::Diagonal:
          io.assign(k, diagScan(shape, layer.diagonal, {0, 0}, drive, h0));
          break;
        case Recurrence::Blocks2:
          io.assign(k, blockScan2(shape, layer.blocks, drive, h0));
          break;
        case Recurrence::General:
          io.assign(k, linearRecurrence(shape, layer.state, drive, h0, layer.reluState));
          break;
      }
      break;
    }
    case Layer::Kind::Conv1d:
      io.assign(k,
                causalConv1d(shape, layer.taps, layer.convWidth, layer.bias, io.input(layer, 0)));
      break;
    case Layer::Kind::RgLru: {
      std::vector<float> a(rows * width), b(rows * width);
      rgLruInputs(shape, layer.diagonal, layer.lruC, io.input(layer, 1), io.input(layer, 2),
                  io.input(layer, 0), a, b);
      const TransitionStrides full{static_cast<long long>(steps) * layer.outWidth, layer.outWidth};
      io.assign(k, diagScan(shape, a, full, b, {}));
      break;
    }
    case Layer::Kind::GruCell:
      io.assign(k, gruRecurrence(shape, layer.state, layer.bias, io.input(layer, 0),
                                 repeated(layer.init, batch), layer.gruRule));
      break;
    case Layer::Kind::LstmCell:
      io.assign(k, lstmRecurrence(shape, layer.state, layer.bias, io.input(layer, 0),
                                  repeated(layer.init, batch), repeated(layer.cellInit, batch)));
      break;
  }
}

// The first value of layer k's output (a tile of `steps`-token sequences) that is not
// finite, if any, with the tile's first sequence `firstSequence`.
std::optional<NonFiniteSite> firstNonFiniteOf(const LayerProgram& program, size_t k,
                                              std::span<const float> values, size_t steps,
                                              size_t firstSequence) {
  const size_t at = firstNonFinite(values);
  if (at == values.size()) return std::nullopt;
  const Layer& layer = program.layers[k];
  const size_t width = static_cast<size_t>(layer.outWidth);
  NonFiniteSite site;
  site.sequence = firstSequence + at / width / steps;
  site.token = at / width % steps;
  site.rank = k;
  site.where = layer.source.empty() ? "layer " + std::to_string(k) : layer.source;
  site.component = at % width;
  site.value = values[at];
  return site;
}

}  // namespace

std::vector<float> runLayersCpu(const LayerProgram& program, const SeriesShape& shape,
                                std::span<const float> tokens, const CpuRunOptions& options,
                                std::vector<std::vector<float>>* layerOutputs) {
  if (shape.batch < 1 || shape.steps < 1)
    throw Error("cpu runner: " + std::to_string(shape.batch) + " sequences of " +
                std::to_string(shape.steps) + " tokens (need at least 1 of each)");
  if (shape.channels != program.inputWidth)
    throw Error("cpu runner: tokens are " + std::to_string(shape.channels) +
                " wide, the model reads " + std::to_string(program.inputWidth));
  program.validate();
  checkHorizon(program, shape.steps, "cpu runner");
  const size_t perSequenceIn =
      static_cast<size_t>(shape.steps) * static_cast<size_t>(shape.channels);
  const size_t perSequenceOut =
      static_cast<size_t>(shape.steps) * static_cast<size_t>(program.outputWidth);
  if (tokens.size() != perSequenceIn * static_cast<size_t>(shape.batch))
    throw Error("cpu runner: expected " +
                std::to_string(perSequenceIn * static_cast<size_t>(shape.batch)) +
                " token values (B·T·width), got " + std::to_string(tokens.size()));

  const size_t sequenceBytes = static_cast<size_t>(shape.steps) *
                               static_cast<size_t>(std::max(1, program.maxWidth())) * sizeof(float);
  const int tile = static_cast<int>(std::clamp<size_t>(
      options.tileBytes / std::max<size_t>(sequenceBytes, 1), 1, static_cast<size_t>(shape.batch)));
  const int tiles = (shape.batch + tile - 1) / tile;
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::clamp(options.threads > 0 ? options.threads : hardware, 1, tiles);

  std::vector<float> out(perSequenceOut * static_cast<size_t>(shape.batch));
  const size_t steps = static_cast<size_t>(shape.steps);
  if (layerOutputs != nullptr) {
    layerOutputs->clear();
    for (const Layer& layer : program.layers)
      layerOutputs->emplace_back(static_cast<size_t>(shape.batch) * steps *
                                 static_cast<size_t>(layer.outWidth));
  }
  const BufferPlan plan = planBuffers(program, layerOutputs != nullptr);
  std::mutex errorMutex;
  std::exception_ptr error;
  auto worker = [&](int first) {
    try {
      std::optional<NonFiniteSite> tileFirst;  // this thread's earliest
      for (int k = first; k < tiles; k += threads) {
        const int b0 = k * tile;
        const int nb = std::min(tile, shape.batch - b0);
        const size_t rows = static_cast<size_t>(nb) * steps;
        TileBuffers io(program, plan, rows,
                       std::vector<float>(
                           tokens.begin() +
                               static_cast<std::ptrdiff_t>(perSequenceIn * static_cast<size_t>(b0)),
                           tokens.begin() + static_cast<std::ptrdiff_t>(
                                                perSequenceIn * static_cast<size_t>(b0 + nb))));
        for (size_t l = 0; l < program.layers.size(); ++l) {
          runLayer(program.layers[l], l, nb, shape.steps, io);
          // A ReLU's value is finite where its input (checked as it was computed) is.
          if (options.nonFinite != nullptr && program.layers[l].kind != Layer::Kind::Relu) {
            if (auto site =
                    firstNonFiniteOf(program, l, io.layerOutput(l), steps, static_cast<size_t>(b0)))
              keepEarliest(tileFirst, *site);
          }
          if (layerOutputs == nullptr) continue;
          // Tiles write disjoint ranges: no lock needed.
          const auto values = io.layerOutput(l);
          const size_t offset =
              static_cast<size_t>(b0) * steps * static_cast<size_t>(program.layers[l].outWidth);
          std::copy(values.begin(), values.end(),
                    (*layerOutputs)[l].begin() + static_cast<std::ptrdiff_t>(offset));
        }
        const auto result = io.result();
        std::memcpy(out.data() + perSequenceOut * static_cast<size_t>(b0), result.data(),
                    result.size() * sizeof(float));
      }
      if (tileFirst) {
        const std::lock_guard lock(errorMutex);
        keepEarliest(*options.nonFinite, *tileFirst);
      }
    } catch (...) {
      const std::lock_guard lock(errorMutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker, i);
  worker(0);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return out;
}

std::vector<std::vector<std::vector<double>>> runSequencesCpu(
    const LayerProgram& program, const std::vector<std::vector<std::vector<double>>>& sequences) {
  if (sequences.empty()) return {};
  const size_t steps = sequences.front().size();
  std::vector<float> tokens;
  for (size_t b = 0; b < sequences.size(); ++b) {
    if (sequences[b].size() != steps)
      throw Error("runSequencesCpu: sequence " + std::to_string(b) + " has " +
                  std::to_string(sequences[b].size()) + " tokens, the first " +
                  std::to_string(steps) + " (one batch needs one length)");
    for (const auto& row : sequences[b])
      for (double v : row) tokens.push_back(static_cast<float>(v));
  }
  const SeriesShape shape{static_cast<int>(sequences.size()), static_cast<int>(steps),
                          program.inputWidth};
  const std::vector<float> out = runLayersCpu(program, shape, tokens);
  const auto w = static_cast<size_t>(program.outputWidth);
  std::vector<std::vector<std::vector<double>>> rows(sequences.size());
  for (size_t b = 0; b < sequences.size(); ++b) {
    for (size_t t = 0; t < steps; ++t) {
      const auto first = out.begin() + static_cast<std::ptrdiff_t>((b * steps + t) * w);
      rows[b].emplace_back(first, first + static_cast<std::ptrdiff_t>(w));
    }
  }
  return rows;
}

}  // namespace lsrl::float_batch
