#include "app/cli/fp32_backends.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <type_traits>

#include "core/float_batch/cpu_runner.h"
#include "core/util/error.h"
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
// [B][T][outputWidth] out.
template <class Scalar>
using RunBatch =
    std::function<std::vector<Scalar>(const float_batch::SeriesShape&, std::span<const Scalar>)>;

template <class Scalar>
void runBlocks(const float_batch::BasicLayerProgram<Scalar>& program,
               const SequenceBlocks<Scalar>& blocks, const RunBatch<Scalar>& run) {
  if (blocks.steps == 0) return;  // empty sequences have no outputs
  std::vector<Scalar> tokens;
  const size_t perSequence = blocks.steps * static_cast<size_t>(program.inputWidth);
  for (size_t first = 0; first < blocks.sequences; first += kMaxSequencesPerBatch) {
    const size_t count = std::min(kMaxSequencesPerBatch, blocks.sequences - first);
    tokens.resize(count * perSequence);
    blocks.fill(first, count, tokens);
    const float_batch::SeriesShape shape{static_cast<int>(count), static_cast<int>(blocks.steps),
                                         program.inputWidth};
    blocks.take(first, count, run(shape, tokens));
  }
}

// Sequences of any lengths, each length a SequenceBlocks of its own.
template <class Scalar>
std::vector<std::vector<std::vector<double>>> runInBatches(
    const float_batch::BasicLayerProgram<Scalar>& program,
    const std::vector<ExactSequence>& sequences, const RunBatch<Scalar>& run) {
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
    runBlocks<Scalar>(program, blocks, run);
  }
  return outputs;
}

// Hands `work` the runner of `program` on `backend`: the CPU runner, or the Vulkan runner of
// its precision on `device` (or a device opened for the call), its scans scheduled by the
// user's calibration.
template <class Scalar>
void withRunner(const float_batch::BasicLayerProgram<Scalar>& program, Fp32Backend backend,
                gpu::Device* device, const std::function<void(const RunBatch<Scalar>&)>& work) {
  if constexpr (std::is_same_v<Scalar, float>) {
    if (backend == Fp32Backend::Cpu) {
      work([&](const float_batch::SeriesShape& shape, std::span<const float> tokens) {
        return float_batch::runLayersCpu(program, shape, tokens);
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
  gpu::LayerRunOptions options;
  options.calibration = &calibration;
  work([&](const float_batch::SeriesShape& shape, std::span<const Scalar> tokens) {
    return runner.run(shape, tokens, options);
  });
#else
  (void)program;
  (void)backend;
  (void)device;
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
                                                      Fp32Backend backend, gpu::Device* device) {
  std::vector<std::vector<std::vector<double>>> outputs;
  withRunner<float>(program, backend, device, [&](const RunBatch<float>& run) {
    outputs = runInBatches<float>(program, sequences, run);
  });
  return outputs;
}

void runFp32(const float_batch::LayerProgram& program, const SequenceBlocks<float>& blocks,
             Fp32Backend backend, gpu::Device* device) {
  withRunner<float>(program, backend, device,
                    [&](const RunBatch<float>& run) { runBlocks<float>(program, blocks, run); });
}

std::vector<std::vector<std::vector<double>>> runVulkanFp64(
    const float_batch::LayerProgram64& program, const std::vector<ExactSequence>& sequences,
    gpu::Device* device) {
  std::vector<std::vector<std::vector<double>>> outputs;
  withRunner<double>(program, Fp32Backend::Vulkan, device, [&](const RunBatch<double>& run) {
    outputs = runInBatches<double>(program, sequences, run);
  });
  return outputs;
}

void runVulkanFp64(const float_batch::LayerProgram64& program, const SequenceBlocks<double>& blocks,
                   gpu::Device* device) {
  withRunner<double>(program, Fp32Backend::Vulkan, device,
                     [&](const RunBatch<double>& run) { runBlocks<double>(program, blocks, run); });
}

}  // namespace lsrl::cli
