#include "core/batch/cpu_runner.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "core/batch/elementwise.h"
#include "core/batch/matvec.h"
#include "core/batch/scan.h"
#include "core/util/error.h"

namespace lsrl::batch {

namespace {

// h0 of a LinState for `batch` sequences: its init repeated.
std::vector<float> repeatedInit(const Layer& layer, int batch) {
  std::vector<float> h0;
  h0.reserve(static_cast<size_t>(batch) * layer.init.size());
  for (int b = 0; b < batch; ++b) h0.insert(h0.end(), layer.init.begin(), layer.init.end());
  return h0;
}

// Runs every layer over `batch` whole sequences; `cur` holds their tokens on entry and
// their outputs on return. With `layerOut`, each layer's output is appended to it.
void runTile(const LayerProgram& program, int batch, int steps, std::vector<float>& cur,
             std::vector<std::vector<float>>* layerOut) {
  const size_t rows = static_cast<size_t>(batch) * static_cast<size_t>(steps);
  std::vector<float> next;
  for (const Layer& layer : program.layers) {
    switch (layer.kind) {
      case Layer::Kind::Linear:
        next.resize(rows * static_cast<size_t>(layer.outWidth));
        csrMatvec(layer.A, layer.bias, cur, rows, next);
        cur.swap(next);
        break;
      case Layer::Kind::Relu:
        reluInPlace(cur);
        break;
      case Layer::Kind::Multi:
        next.resize(rows * static_cast<size_t>(layer.outWidth));
        multi(cur, rows, static_cast<size_t>(layer.outWidth), next);
        cur.swap(next);
        break;
      case Layer::Kind::LinState: {
        next.resize(rows * static_cast<size_t>(layer.outWidth));
        csrMatvec(layer.A, layer.bias, cur, rows, next);
        const SeriesShape shape{batch, steps, layer.outWidth};
        const std::vector<float> h0 = repeatedInit(layer, batch);
        switch (layer.recurrence) {
          case Recurrence::Diagonal:
            cur = diagScan(shape, layer.diagonal, {0, 0}, next, h0);
            break;
          case Recurrence::Blocks2:
            cur = blockScan2(shape, layer.blocks, next, h0);
            break;
          case Recurrence::General:
            cur = linearRecurrence(shape, layer.state, next, h0);
            break;
        }
        break;
      }
    }
    if (layerOut != nullptr) layerOut->push_back(cur);
  }
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
  std::mutex errorMutex;
  std::exception_ptr error;
  auto worker = [&](int first) {
    try {
      for (int k = first; k < tiles; k += threads) {
        const int b0 = k * tile;
        const int nb = std::min(tile, shape.batch - b0);
        std::vector<float> cur(
            tokens.begin() + static_cast<std::ptrdiff_t>(perSequenceIn * static_cast<size_t>(b0)),
            tokens.begin() +
                static_cast<std::ptrdiff_t>(perSequenceIn * static_cast<size_t>(b0 + nb)));
        std::vector<std::vector<float>> tileLayers;
        runTile(program, nb, shape.steps, cur, layerOutputs != nullptr ? &tileLayers : nullptr);
        for (size_t l = 0; l < tileLayers.size(); ++l) {
          // Tiles write disjoint ranges: no lock needed.
          const size_t offset =
              static_cast<size_t>(b0) * steps * static_cast<size_t>(program.layers[l].outWidth);
          std::copy(tileLayers[l].begin(), tileLayers[l].end(),
                    (*layerOutputs)[l].begin() + static_cast<std::ptrdiff_t>(offset));
        }
        std::memcpy(out.data() + perSequenceOut * static_cast<size_t>(b0), cur.data(),
                    cur.size() * sizeof(float));
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

}  // namespace lsrl::batch
