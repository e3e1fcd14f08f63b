#include "app/cli/fp32_backends.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "core/batch/cpu_runner.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/vulkan/layer_runner.h"
#endif

namespace lsrl::cli {

namespace {

// Batches of at most this many sequences: the Vulkan scans launch one workgroup row per
// sequence (at most 65535), and a bounded batch keeps the token and output buffers small.
constexpr size_t kMaxSequencesPerBatch = 4096;

// The fp32 value of an input, refused when fp32 cannot hold it (as float64 refuses NaN and
// infinities): a silent inf or NaN would flow through the whole model.
float fp32Input(const Exact& x, size_t sequence, size_t token, size_t feature) {
  const double d = x.toDouble();
  const auto f = static_cast<float>(d);
  if (std::isfinite(f)) return f;
  const std::string value = std::isnan(d)   ? std::string("NaN")
                            : std::isinf(d) ? std::string(d > 0 ? "+" : "-") + "infinity in float64"
                                            : std::to_string(d);
  throw Error("sequence " + std::to_string(sequence) + ", token " + std::to_string(token) +
              ", feature " + std::to_string(feature) + " is " + value +
              ", which is not a finite fp32 number (|x| <= 3.4e38): inputs must be finite numbers");
}

}  // namespace

std::vector<std::vector<std::vector<double>>> runFp32(const batch::LayerProgram& program,
                                                      const std::vector<ExactSequence>& sequences,
                                                      Fp32Backend backend) {
#ifdef LSRL_HAVE_VULKAN
  std::unique_ptr<gpu::Device> device;
  std::unique_ptr<gpu::LayerRunner> runner;
  if (backend == Fp32Backend::Vulkan) {
    device = gpu::Device::open();
    runner = std::make_unique<gpu::LayerRunner>(*device, program);
  }
#else
  if (backend == Fp32Backend::Vulkan)
    throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend cpu32");
#endif
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
      std::vector<float> tokens;
      for (size_t i : members) {
        for (size_t t = 0; t < steps; ++t) {
          const ExactVector& row = sequences[i][t];
          if (static_cast<int>(row.size()) != program.inputWidth)
            throw Error("sequence " + std::to_string(i) + ", token " + std::to_string(t) +
                        ": the token is " + std::to_string(row.size()) + " wide, expected " +
                        std::to_string(program.inputWidth) + " (the model's input width)");
          for (size_t f = 0; f < row.size(); ++f) tokens.push_back(fp32Input(row[f], i, t, f));
        }
      }
      const batch::SeriesShape shape{static_cast<int>(members.size()), static_cast<int>(steps),
                                     program.inputWidth};
      std::vector<float> out;
      if (backend == Fp32Backend::Cpu) {
        out = batch::runLayersCpu(program, shape, tokens);
      } else {
#ifdef LSRL_HAVE_VULKAN
        out = runner->run(shape, tokens);
#endif
      }
      const size_t w = static_cast<size_t>(program.outputWidth);
      for (size_t k = 0; k < members.size(); ++k) {
        auto& rows = outputs[members[k]];
        for (size_t t = 0; t < steps; ++t) {
          const float* row = out.data() + (k * steps + t) * w;
          rows.emplace_back(row, row + w);
        }
      }
    }
  }
  return outputs;
}

}  // namespace lsrl::cli
