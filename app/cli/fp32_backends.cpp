#include "app/cli/fp32_backends.h"

#include <algorithm>
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

// The fp32 (fp64) value of an input, refused when the format cannot hold it (as float64
// refuses NaN and infinities): a silent inf or NaN would flow through the whole model.
template <class Scalar>
Scalar deviceInput(const Exact& x, size_t sequence, size_t token, size_t feature) {
  const double d = x.toDouble();
  const auto v = static_cast<Scalar>(d);
  if (std::isfinite(v)) return v;
  const bool fp64 = std::is_same_v<Scalar, double>;
  const std::string value = std::isnan(d)   ? std::string("NaN")
                            : std::isinf(d) ? std::string(d > 0 ? "+" : "-") + "infinity in float64"
                                            : std::to_string(d);
  throw Error("sequence " + std::to_string(sequence) + ", token " + std::to_string(token) +
              ", feature " + std::to_string(feature) + " is " + value + ", which is not a finite " +
              (fp64 ? "fp64 number (|x| <= 1.8e308)" : "fp32 number (|x| <= 3.4e38)") +
              ": inputs must be finite numbers");
}

// One batch of equal-length sequences through a runner: [B][T][inputWidth] tokens in,
// [B][T][outputWidth] out.
template <class Scalar>
using RunBatch =
    std::function<std::vector<Scalar>(const float_batch::SeriesShape&, std::span<const Scalar>)>;

template <class Scalar>
std::vector<std::vector<std::vector<double>>> runInBatches(
    const float_batch::BasicLayerProgram<Scalar>& program,
    const std::vector<ExactSequence>& sequences, const RunBatch<Scalar>& run) {
  std::map<size_t, std::vector<size_t>> byLength;  // T → sequence indices
  for (size_t i = 0; i < sequences.size(); ++i) byLength[sequences[i].size()].push_back(i);
  std::vector<std::vector<std::vector<double>>> outputs(sequences.size());
  for (const auto& [steps, sameLength] : byLength) {
    if (steps == 0) continue;  // an empty sequence has no outputs
    for (size_t first = 0; first < sameLength.size(); first += kMaxSequencesPerBatch) {
      const std::vector<size_t> members(
          sameLength.begin() + static_cast<std::ptrdiff_t>(first),
          sameLength.begin() + static_cast<std::ptrdiff_t>(
                                   std::min(sameLength.size(), first + kMaxSequencesPerBatch)));
      std::vector<Scalar> tokens;
      for (size_t i : members) {
        for (size_t t = 0; t < steps; ++t) {
          const ExactVector& row = sequences[i][t];
          if (static_cast<int>(row.size()) != program.inputWidth)
            throw Error("sequence " + std::to_string(i) + ", token " + std::to_string(t) +
                        ": the token is " + std::to_string(row.size()) + " wide, expected " +
                        std::to_string(program.inputWidth) + " (the model's input width)");
          for (size_t f = 0; f < row.size(); ++f)
            tokens.push_back(deviceInput<Scalar>(row[f], i, t, f));
        }
      }
      const float_batch::SeriesShape shape{static_cast<int>(members.size()),
                                           static_cast<int>(steps), program.inputWidth};
      const std::vector<Scalar> out = run(shape, tokens);
      const size_t w = static_cast<size_t>(program.outputWidth);
      for (size_t k = 0; k < members.size(); ++k) {
        auto& rows = outputs[members[k]];
        for (size_t t = 0; t < steps; ++t) {
          const Scalar* row = out.data() + (k * steps + t) * w;
          rows.emplace_back(row, row + w);
        }
      }
    }
  }
  return outputs;
}

#ifdef LSRL_HAVE_VULKAN
// A program through the Vulkan runner of its precision on `device` (or a device opened
// for the call), its scans scheduled by the user's calibration.
template <class Scalar>
std::vector<std::vector<std::vector<double>>> runOnVulkan(
    const float_batch::BasicLayerProgram<Scalar>& program,
    const std::vector<ExactSequence>& sequences, gpu::Device* device) {
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
  return runInBatches<Scalar>(
      program, sequences,
      [&](const float_batch::SeriesShape& shape, std::span<const Scalar> tokens) {
        return runner.run(shape, tokens, options);
      });
}
#endif

}  // namespace

std::vector<std::vector<std::vector<double>>> runFp32(const float_batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend, gpu::Device* device) {
  if (backend == Fp32Backend::Cpu)
    return runInBatches<float>(
        program, sequences,
        [&](const float_batch::SeriesShape& shape, std::span<const float> tokens) {
          return float_batch::runLayersCpu(program, shape, tokens);
        });
#ifdef LSRL_HAVE_VULKAN
  return runOnVulkan<float>(program, sequences, device);
#else
  (void)device;
  throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend cpu32");
#endif
}

std::vector<std::vector<std::vector<double>>> runVulkanFp64(
    const float_batch::LayerProgram64& program, const std::vector<ExactSequence>& sequences,
    gpu::Device* device) {
#ifdef LSRL_HAVE_VULKAN
  return runOnVulkan<double>(program, sequences, device);
#else
  (void)program;
  (void)sequences;
  (void)device;
  throw Error(
      "this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend float64 for "
      "float64 on the CPU");
#endif
}

}  // namespace lsrl::cli
