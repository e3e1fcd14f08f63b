// One minGRU / minLSTM cell call recorded on the device, shared by the cell's host entry
// point (min_rnn_device.h) and the model whose every layer runs there
// (min_rnn_resident.h): shaders/min_rnn_gates.comp turns the Linears' pre-activations into
// the scan's leaves, then the diagonal scan of scan_kernels.h runs the recurrence.
#pragma once

#include <cstddef>

#include "core/gpu/device.h"
#include "core/gpu/scan_kernels.h"
#include "core/seed_models/min_rnn_model.h"

namespace lsrl::gpu {

// What one call's sequences share.
struct MinRnnCellShape {
  seed_models::MinRnnCell cell = seed_models::MinRnnCell::Gru;
  seed_models::MinRnnVariant variant = seed_models::MinRnnVariant::Vanilla;
  size_t steps = 0, width = 0;
  size_t linears() const {  // gates, then "h"
    return cell == seed_models::MinRnnCell::Lstm ? 3 : 2;
  }
  size_t gateArrays() const { return cell == seed_models::MinRnnCell::Lstm ? 4 : 1; }
  size_t perSequence() const { return steps * width; }
};

// Device buffers of a call over `sequences` sequences, fp32 [b][t][unit]: pre holds the
// Linears' pre-activations one array after the other, h0 [b][unit] the states before t = 0;
// a and b the scan's leaves; h the states; candidate (h̃) and gates (one array after the
// other) are written only with keepGates (else a float each keeps the bindings valid);
// scratch as ScanKernels::diagScanScratchBytes asks for `scanShape(…)`.
struct MinRnnCellBuffers {
  const Buffer* pre = nullptr;
  const Buffer* h0 = nullptr;
  const Buffer* a = nullptr;
  const Buffer* b = nullptr;
  const Buffer* h = nullptr;
  const Buffer* candidate = nullptr;
  const Buffer* gates = nullptr;
  const Buffer* scratch = nullptr;
};

// The diagonal scan a call runs: a varies with sequence and step.
DiagScanShape minRnnScanShape(const MinRnnCellShape& s, size_t sequences);

void recordMinRnnCell(Device& dev, Batch& batch, ScanKernels& scans, const MinRnnCellShape& s,
                      size_t sequences, const MinRnnCellBuffers& buffers, bool keepGates,
                      const ScanOptions& options);

}  // namespace lsrl::gpu
