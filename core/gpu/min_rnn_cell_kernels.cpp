#include "core/gpu/min_rnn_cell_kernels.h"

#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"

namespace lsrl::gpu {

namespace {
struct GatePush {
  uint32_t count, trace;
};
}  // namespace

DiagScanShape minRnnScanShape(const MinRnnCellShape& s, size_t sequences) {
  const auto width = static_cast<long long>(s.width);
  return {{static_cast<int>(sequences), static_cast<int>(s.steps), static_cast<int>(s.width)},
          {static_cast<long long>(s.steps) * width, width},
          false};
}

void recordMinRnnCell(Device& dev, Batch& batch, ScanKernels& scans, const MinRnnCellShape& s,
                      size_t sequences, const MinRnnCellBuffers& buffers, bool keepGates,
                      const ScanOptions& options) {
  const size_t n = sequences * s.perSequence();
  const GatePush push{static_cast<uint32_t>(n), keepGates ? 1u : 0u};
  const Kernel& gateKernel = shaderKernel(dev, "min_rnn_gates", 5, sizeof push,
                                          {s.cell == seed_models::MinRnnCell::Lstm ? 1u : 0u,
                                           s.variant == seed_models::MinRnnVariant::Log ? 1u : 0u});
  batch.dispatch(gateKernel, {buffers.pre, buffers.a, buffers.b, buffers.candidate, buffers.gates},
                 &push, sizeof push, cappedGroups(n, gateKernel.workgroup().x));
  scans.recordDiagScan(batch, {buffers.a, buffers.b, buffers.h0, buffers.h, buffers.scratch},
                       minRnnScanShape(s, sequences), options);
}

}  // namespace lsrl::gpu
