#include "app/cli/fp32_backends.h"

#include <map>
#include <memory>

#include "core/batch/cpu_runner.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/vulkan/layer_runner.h"
#endif

namespace lsrl::cli {

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
  for (const auto& [steps, members] : byLength) {
    if (steps == 0) continue;  // an empty sequence has no outputs
    std::vector<float> tokens;
    for (size_t i : members) {
      for (const ExactVector& row : sequences[i]) {
        if (static_cast<int>(row.size()) != program.inputWidth)
          throw Error("sequence " + std::to_string(i) + ": tokens are " +
                      std::to_string(row.size()) + " wide, the model reads " +
                      std::to_string(program.inputWidth));
        for (const Exact& x : row) tokens.push_back(static_cast<float>(x.toDouble()));
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
  return outputs;
}

}  // namespace lsrl::cli
