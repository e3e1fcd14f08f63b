#include "app/cli/array_run.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "app/cli/fp32_backends.h"
#include "app/cli/nonfinite_watch.h"
#include "app/cli/progress_printer.h"
#include "app/cli/runnable_file.h"
#include "core/executor/executor.h"
#include "core/float_batch/target_program.h"
#include "core/io/array_file.h"
#include "core/io/token_array.h"
#include "core/util/error.h"
#include "core/util/thousands.h"

namespace lsrl::cli {

namespace {

// The CPU executors run chunks of about this many tokens on all threads (as streamed_run.cpp).
constexpr size_t kChunkTokens = size_t{1} << 16;

void requireWidth(const TokenArray& in, int expected, const std::string& file) {
  if (in.width() == static_cast<size_t>(expected)) return;
  throw Error(in.source() + ": tokens of " + std::to_string(in.width()) + " values (shape " +
              shapeText(in.fileShape()) + "), expected " + std::to_string(expected) +
              " (the input width of " + file + ")");
}

// The output array: the input's shape with the model's output width last, written sequence
// block after sequence block, with progress.
class OutputArray {
 public:
  OutputArray(const std::string& path, const TokenArray& in, int outputWidth, Tensor::DType dtype,
              bool progress)
      : shape_(in.fileShape()),
        writer_(path, {{"output", dtype, withWidth(in.fileShape(), outputWidth)}}),
        sequences_(in.sequences()),
        progress_("lsrl run", progress) {
    shape_.back() = outputWidth;
  }

  template <class V>
  void take(std::span<const V> values, size_t sequences) {
    writer_.append(values);
    done_ += sequences;
    progress_.update([this] {
      return withThousands(done_) + " of " + withThousands(sequences_) + " sequences (" +
             std::to_string(done_ * 100 / sequences_) + " %)";
    });
  }

  void commit() {
    writer_.commit();
    progress_.finish(withThousands(done_) + " sequences");
  }

  const std::vector<int64_t>& shape() const { return shape_; }

 private:
  static std::vector<int64_t> withWidth(std::vector<int64_t> shape, int width) {
    shape.back() = width;
    return shape;
  }

  std::vector<int64_t> shape_;
  ArrayFileWriter writer_;
  size_t sequences_;
  size_t done_ = 0;
  ProgressPrinter progress_;
};

// The array's sequences as a batch runner's blocks: decoded, converted to Scalar (a value
// fp32 cannot hold is refused, naming the file), outputs to `out` unless the watch refuses
// the run.
template <class Scalar>
SequenceBlocks<Scalar> arrayBlocks(const TokenArray& in, OutputArray& out,
                                   std::vector<double>& scratch, const NonFiniteWatch& watch) {
  SequenceBlocks<Scalar> blocks;
  blocks.sequences = in.sequences();
  blocks.steps = in.steps();
  blocks.fill = [&in, &scratch](size_t first, size_t count, std::span<Scalar> tokens) {
    scratch.resize(tokens.size());
    in.decode(first, count, scratch);
    for (size_t k = 0; k < tokens.size(); ++k) {
      tokens[k] = static_cast<Scalar>(scratch[k]);
      if (std::isfinite(tokens[k])) continue;
      const size_t perSequence = in.steps() * in.width();
      try {
        (void)deviceInput<Scalar>(scratch[k], first + k / perSequence, k / in.width() % in.steps(),
                                  k % in.width());
      } catch (const Error& e) {
        throw Error(in.source() + ": " + e.what());
      }
    }
  };
  blocks.take = [&out, &watch](size_t, size_t count, std::span<const Scalar> outputs) {
    watch.refuseIfFound();
    out.take(outputs, count);
  };
  return blocks;
}

// One sequence of the array as the float64 executor's tokens.
FloatSequence floatSequence(const TokenArray& in, size_t sequence, std::vector<double>& scratch) {
  scratch.resize(in.steps() * in.width());
  in.decode(sequence, 1, scratch);
  FloatSequence tokens(in.steps());
  for (size_t t = 0; t < in.steps(); ++t)
    tokens[t].assign(scratch.begin() + static_cast<std::ptrdiff_t>(t * in.width()),
                     scratch.begin() + static_cast<std::ptrdiff_t>((t + 1) * in.width()));
  return tokens;
}

// The float64 or exact executor over chunks of sequences on all threads; exact outputs are
// rounded once to the nearest double. Float64 chunks offer their first non-finite value
// to `watch` (null for exact runs).
template <class V>
void runOnExecutor(const std::shared_ptr<const Plan>& plan, const TokenArray& in, OutputArray& out,
                   int threads, NonFiniteWatch* watch) {
  const size_t perChunk = std::max<size_t>(1, kChunkTokens / in.steps());
  std::vector<double> scratch, rows;
  for (size_t first = 0; first < in.sequences(); first += perChunk) {
    const size_t count = std::min(perChunk, in.sequences() - first);
    std::vector<std::vector<std::vector<V>>> chunk;
    chunk.reserve(count);
    for (size_t s = first; s < first + count; ++s) {
      if constexpr (std::is_same_v<V, double>) {
        chunk.push_back(floatSequence(in, s, scratch));
      } else {
        chunk.push_back(exactTokens(floatSequence(in, s, scratch)));
      }
    }
    rows.clear();
    std::optional<NonFiniteSite> site;
    BatchOptions batch{threads};
    if (watch != nullptr) batch.nonFinite = &site;
    const auto outputs = runBatch<V>(plan, chunk, batch);
    if (watch != nullptr && site) {
      site->sequence += first;
      watch->offer(std::move(*site));
      watch->refuseIfFound();
    }
    for (const auto& sequence : outputs)
      for (const auto& row : sequence)
        for (const V& x : row) {
          if constexpr (std::is_same_v<V, double>) {
            rows.push_back(x);
          } else {
            rows.push_back(x.toDouble());
          }
        }
    out.take(std::span<const double>(rows), count);
  }
}

}  // namespace

nlohmann::ordered_json runArrayFile(const std::string& file, const std::string& inputPath,
                                    const std::string& outputPath, const ArrayRunOptions& options) {
  const std::string& backend = options.backend;
  const bool exact = backend == "exact";
  const bool batched = backend == "cpu32" || backend == "vulkan";
  const Fp32Backend fp32Backend = backend == "vulkan" ? Fp32Backend::Vulkan : Fp32Backend::Cpu;
  const Tensor::DType dtype = batched && !options.fp64 ? Tensor::F32 : Tensor::F64;
  const TokenArray in = readTokenArray(inputPath);
  std::vector<double> scratch;
  const bool weights = isWeightFile(file);
  if (weights && exact)
    throw Error(file +
                " holds a target architecture's float64 weights: --backend exact needs "
                "the compiled model (lsrl compile --backend exact)");
  bool compiled = false;
  const std::optional<Graph> graph =
      weights ? std::nullopt
              : std::optional<Graph>(loadRunnableGraph(file, exact, Validation::Refuse, &compiled));
  // The graph names the watch's nodes (and replays fp64 runs).
  NonFiniteWatch watch(options.allowNonFinite,
                       !batched ? "float64" : (options.fp64 ? "fp64" : "fp32"),
                       in.fileShape().size() == 3, graph ? &*graph : nullptr);
  std::unique_ptr<OutputArray> out;
  auto openOutput = [&](int outputWidth) {
    out = std::make_unique<OutputArray>(outputPath, in, outputWidth, dtype, options.progress);
  };

  if (weights) {
    const FloatTargetModel model = loadTargetWeights(file);
    requireWidth(in, model.inputDim(), file);
    openOutput(model.outputDim());
    if (batched) {
      runFp32(float_batch::layerProgramFromTarget(model),
              arrayBlocks<float>(in, *out, scratch, watch), fp32Backend, nullptr, &watch);
    } else {
      std::vector<double> rows;
      for (size_t s = 0; s < in.sequences(); ++s) {
        rows.clear();
        const auto outputs = model.run(floatSequence(in, s, scratch));
        watch.offerOutputs(s, outputs);
        watch.refuseIfFound();
        for (const auto& row : outputs) rows.insert(rows.end(), row.begin(), row.end());
        out->take(std::span<const double>(rows), 1);
      }
    }
  } else {
    if (options.fp64) {
      const float_batch::LayerProgram64 program = float_batch::layerProgramFromPath<double>(*graph);
      requireWidth(in, program.inputWidth, file);
      openOutput(program.outputWidth);
      runVulkanFp64(program, arrayBlocks<double>(in, *out, scratch, watch), nullptr, &watch);
    } else if (batched) {
      const float_batch::LayerProgram program = float_batch::layerProgramFromPath(*graph);
      requireWidth(in, program.inputWidth, file);
      openOutput(program.outputWidth);
      runFp32(program, arrayBlocks<float>(in, *out, scratch, watch), fp32Backend, nullptr, &watch);
    } else {
      PlanOptions planOptions;
      planOptions.exact = exact;
      planOptions.allowHugeSparse = compiled;  // validated by loadRunnableGraph
      const auto plan = Plan::make(*graph, planOptions);
      requireWidth(in, plan->inputWidth(), file);
      openOutput(plan->outputWidth());
      if (exact) {
        runOnExecutor<Exact>(plan, in, *out, options.threads, nullptr);
      } else {
        runOnExecutor<double>(plan, in, *out, options.threads, &watch);
      }
    }
  }
  watch.finish(std::cerr);
  out->commit();

  nlohmann::ordered_json line;
  line["backend"] = backend;
  if (batched) line["precision"] = options.fp64 ? "fp64" : "fp32";
  line["input"] = inputPath;
  line["output"] = outputPath;
  line["shape"] = out->shape();
  line["dtype"] = dtypeName(dtype);
  return line;
}

}  // namespace lsrl::cli
