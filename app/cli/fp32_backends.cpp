#include "app/cli/fp32_backends.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>

#include "app/cli/nonfinite_watch.h"
#include "app/cli/warn_once.h"
#include "core/float_batch/cpu_runner.h"
#include "core/util/error.h"
#include "core/util/nonfinite.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/gpu/layer_runner.h"
#include "core/gpu/scan_calibration.h"
#endif

namespace lsrl::cli {

namespace {

// Batches of at most this many sequences: the Vulkan scans launch one workgroup row per
// sequence (at most 65535), and a bounded batch keeps the token and output buffers small.
constexpr size_t kMaxSequencesPerBatch = 4096;

// One batch of equal-length sequences through a runner: [B][T][inputWidth] tokens in,
// [B][T][outputWidth] out; with `nonFinite`, the batch's first value that is not finite
// (its sequence counted in the batch).
template <class Scalar>
using RunBatch = std::function<std::vector<Scalar>(
    const float_batch::SeriesShape&, std::span<const Scalar>, std::optional<NonFiniteSite>*)>;

template <class Scalar>
void runBlocks(const float_batch::BasicLayerProgram<Scalar>& program,
               const SequenceBlocks<Scalar>& blocks, const RunBatch<Scalar>& run,
               NonFiniteWatch* watch) {
  if (blocks.steps == 0) return;  // empty sequences have no outputs
  std::vector<Scalar> tokens;
  const size_t perSequence = blocks.steps * static_cast<size_t>(program.inputWidth);
  for (size_t first = 0; first < blocks.sequences; first += kMaxSequencesPerBatch) {
    const size_t count = std::min(kMaxSequencesPerBatch, blocks.sequences - first);
    tokens.resize(count * perSequence);
    blocks.fill(first, count, tokens);
    const float_batch::SeriesShape shape{static_cast<int>(count), static_cast<int>(blocks.steps),
                                         program.inputWidth};
    std::optional<NonFiniteSite> site;
    const std::vector<Scalar> outputs = run(shape, tokens, watch != nullptr ? &site : nullptr);
    if (site) {
      const size_t k = first + site->sequence;
      site->sequence = blocks.inputIndex ? blocks.inputIndex(k) : k;
      watch->offer(std::move(*site));
    }
    blocks.take(first, count, outputs);
  }
}

// Sequences of any lengths, each length a SequenceBlocks of its own.
template <class Scalar>
std::vector<std::vector<std::vector<double>>> runInBatches(
    const float_batch::BasicLayerProgram<Scalar>& program,
    const std::vector<ExactSequence>& sequences, const RunBatch<Scalar>& run,
    NonFiniteWatch* watch) {
  std::map<size_t, std::vector<size_t>> byLength;  // T → sequence indices
  for (size_t i = 0; i < sequences.size(); ++i) byLength[sequences[i].size()].push_back(i);
  std::vector<std::vector<std::vector<double>>> outputs(sequences.size());
  for (const auto& [steps, sameLength] : byLength) {
    SequenceBlocks<Scalar> blocks;
    blocks.sequences = sameLength.size();
    blocks.steps = steps;
    blocks.fill = [&, steps = steps, &sameLength = sameLength](size_t first, size_t count,
                                                               std::span<Scalar> tokens) {
      Scalar* to = tokens.data();
      for (size_t k = first; k < first + count; ++k) {
        const size_t i = sameLength[k];
        for (size_t t = 0; t < steps; ++t) {
          const ExactVector& row = sequences[i][t];
          if (static_cast<int>(row.size()) != program.inputWidth)
            throw Error("sequence " + std::to_string(i) + ", token " + std::to_string(t) +
                        ": the token is " + std::to_string(row.size()) + " wide, expected " +
                        std::to_string(program.inputWidth) + " (the model's input width)");
          for (size_t f = 0; f < row.size(); ++f)
            *to++ = deviceInput<Scalar>(row[f].toDouble(), i, t, f);
        }
      }
    };
    blocks.take = [&, steps = steps, &sameLength = sameLength](size_t first, size_t count,
                                                               std::span<const Scalar> out) {
      const size_t w = static_cast<size_t>(program.outputWidth);
      for (size_t k = 0; k < count; ++k) {
        auto& rows = outputs[sameLength[first + k]];
        for (size_t t = 0; t < steps; ++t) {
          const Scalar* row = out.data() + (k * steps + t) * w;
          rows.emplace_back(row, row + w);
        }
      }
    };
    blocks.inputIndex = [&sameLength = sameLength](size_t k) { return sameLength[k]; };
    runBlocks<Scalar>(program, blocks, run, watch);
  }
  return outputs;
}

// The first non-finite value of a device batch: the first non-finite output, its sequence
// run again on the CPU twin (the fp32 CPU runner; the float64 executor of the watch's graph
// for fp64) to find the token and layer where it started, since the device keeps no layer's
// values. Null when every output is finite.
template <class Scalar>
std::optional<NonFiniteSite> locateOnTwin(const float_batch::BasicLayerProgram<Scalar>& program,
                                          const float_batch::SeriesShape& shape,
                                          std::span<const Scalar> tokens,
                                          std::span<const Scalar> outputs,
                                          const NonFiniteWatch& watch) {
  const size_t at = firstNonFinite(outputs);
  if (at == outputs.size()) return std::nullopt;
  const size_t width = static_cast<size_t>(program.outputWidth);
  const size_t steps = static_cast<size_t>(shape.steps);
  const size_t sequence = at / width / steps;
  const size_t perSequence = steps * static_cast<size_t>(program.inputWidth);
  const std::span<const Scalar> own = tokens.subspan(sequence * perSequence, perSequence);
  std::optional<NonFiniteSite> site;
  if constexpr (std::is_same_v<Scalar, float>) {
    float_batch::CpuRunOptions options;
    options.threads = 1;
    options.nonFinite = &site;
    float_batch::runLayersCpu(program, {1, shape.steps, program.inputWidth}, own, options);
  } else {
    std::vector<std::vector<double>> rows(steps);
    for (size_t t = 0; t < steps; ++t)
      rows[t].assign(own.begin() + static_cast<std::ptrdiff_t>(t * program.inputWidth),
                     own.begin() + static_cast<std::ptrdiff_t>((t + 1) * program.inputWidth));
    site = watch.replayInFloat64(rows);
  }
  if (!site) {  // the twin's arithmetic stayed finite: only the output is known
    site.emplace();
    site->token = at / width % steps;
    site->rank = program.layers.size();
    site->where = "the output (its layer unknown: the CPU twin stays finite)";
    site->component = at % width;
    site->value = outputs[at];
  }
  site->sequence = sequence;
  return site;
}

// Hands `work` the runner of `program` on `backend`: the CPU runner, or the Vulkan runner of
// its precision on `device` (or a device opened for the call), its scans scheduled by the
// user's calibration.
template <class Scalar>
void withRunner(const float_batch::BasicLayerProgram<Scalar>& program, Fp32Backend backend,
                gpu::Device* device, const NonFiniteWatch* watch,
                const std::function<void(const RunBatch<Scalar>&)>& work) {
  if constexpr (std::is_same_v<Scalar, float>) {
    if (backend == Fp32Backend::Cpu) {
      work([&](const float_batch::SeriesShape& shape, std::span<const float> tokens,
               std::optional<NonFiniteSite>* nonFinite) {
        float_batch::CpuRunOptions options;
        options.nonFinite = nonFinite;
        return float_batch::runLayersCpu(program, shape, tokens, options);
      });
      return;
    }
  }
#ifdef LSRL_HAVE_VULKAN
  (void)backend;
  std::unique_ptr<gpu::Device> opened;
  if (device == nullptr) {
    opened = gpu::Device::open();
    device = opened.get();
  }
  gpu::BasicLayerRunner<Scalar> runner(*device, program);
  gpu::ScanCalibration calibration(*device, gpu::defaultScanCalibrationFile(),
                                   gpu::realOf<Scalar>());
  warnOnce(calibration.cacheWarning());
  gpu::LayerRunOptions options;
  options.calibration = &calibration;
  work([&](const float_batch::SeriesShape& shape, std::span<const Scalar> tokens,
           std::optional<NonFiniteSite>* nonFinite) {
    std::vector<Scalar> outputs = runner.run(shape, tokens, options);
    if (nonFinite != nullptr && watch != nullptr)
      *nonFinite = locateOnTwin<Scalar>(program, shape, tokens, outputs, *watch);
    return outputs;
  });
#else
  (void)program;
  (void)backend;
  (void)device;
  (void)watch;
  (void)work;
  if constexpr (std::is_same_v<Scalar, float>)
    throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend cpu32");
  throw Error(
      "this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend float64 for "
      "float64 on the CPU");
#endif
}

}  // namespace

template <class Scalar>
Scalar deviceInput(double d, size_t sequence, size_t token, size_t feature) {
  const auto v = static_cast<Scalar>(d);
  if (std::isfinite(v)) return v;
  const bool fp64 = std::is_same_v<Scalar, double>;
  char text[32];  // the shortest text that reads back as d: 1e+300, not its 301 digits
  const auto written = std::to_chars(text, text + sizeof text, d);
  const std::string value = std::isnan(d)   ? std::string("NaN")
                            : std::isinf(d) ? std::string(d > 0 ? "+" : "-") + "infinity in float64"
                                            : std::string(text, written.ptr);
  throw Error("sequence " + std::to_string(sequence) + ", token " + std::to_string(token) +
              ", feature " + std::to_string(feature) + " is " + value + ", which is not a finite " +
              (fp64 ? "fp64 number (|x| <= 1.8e308)" : "fp32 number (|x| <= 3.4e38)") +
              ": inputs must be finite numbers");
}
template float deviceInput<float>(double, size_t, size_t, size_t);
template double deviceInput<double>(double, size_t, size_t, size_t);

std::vector<std::vector<std::vector<double>>> runFp32(const float_batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend, gpu::Device* device,
                                                      NonFiniteWatch* watch) {
  std::vector<std::vector<std::vector<double>>> outputs;
  withRunner<float>(program, backend, device, watch, [&](const RunBatch<float>& run) {
    outputs = runInBatches<float>(program, sequences, run, watch);
  });
  return outputs;
}

void runFp32(const float_batch::LayerProgram& program, const SequenceBlocks<float>& blocks,
             Fp32Backend backend, gpu::Device* device, NonFiniteWatch* watch) {
  withRunner<float>(program, backend, device, watch, [&](const RunBatch<float>& run) {
    runBlocks<float>(program, blocks, run, watch);
  });
}

std::vector<std::vector<std::vector<double>>> runVulkanFp64(
    const float_batch::LayerProgram64& program, const std::vector<ExactSequence>& sequences,
    gpu::Device* device, NonFiniteWatch* watch) {
  std::vector<std::vector<std::vector<double>>> outputs;
  withRunner<double>(program, Fp32Backend::Vulkan, device, watch, [&](const RunBatch<double>& run) {
    outputs = runInBatches<double>(program, sequences, run, watch);
  });
  return outputs;
}

void runVulkanFp64(const float_batch::LayerProgram64& program, const SequenceBlocks<double>& blocks,
                   gpu::Device* device, NonFiniteWatch* watch) {
  withRunner<double>(program, Fp32Backend::Vulkan, device, watch, [&](const RunBatch<double>& run) {
    runBlocks<double>(program, blocks, run, watch);
  });
}

}  // namespace lsrl::cli
