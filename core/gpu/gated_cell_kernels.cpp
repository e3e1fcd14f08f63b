#include "core/gpu/gated_cell_kernels.h"

#include <algorithm>
#include <cstdint>

#include "core/gpu/kernel_support.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"

namespace lsrl::gpu {

namespace {

struct CellPush {
  uint32_t batch, steps, hidden, hasH0, option, t0, count;
};

constexpr const char* kGru = "gruRecurrence";
constexpr const char* kLstm = "lstmRecurrence";

}  // namespace

void GatedCellKernels::record(Batch& batch, const char* kernel, const char* shader, int gates,
                              const CsrBuffers& Whh, size_t nonzeros, const Buffer& bhh,
                              const Buffer& gi, const Buffer* h0, const Buffer* c0, const Buffer& h,
                              const float_batch::SeriesShape& shape, uint32_t option) {
  float_batch::gated_cell_checks::shape(kernel, shape, gates);
  const size_t H = shape.channels, rows = size_t(shape.batch) * shape.steps;
  const size_t gateRow = size_t(gates) * H;
  checkBuffer(kernel, "rowPtr", Whh.rowPtr, (gateRow + 1) * sizeof(uint32_t));
  checkBuffer(kernel, "col", Whh.col, std::max<size_t>(nonzeros, 1) * sizeof(uint32_t));
  checkBuffer(kernel, "val", Whh.val, std::max<size_t>(nonzeros, 1) * sizeof(float));
  checkBuffer(kernel, "bhh", &bhh, gateRow * sizeof(float));
  checkBuffer(kernel, "gi", &gi, rows * gateRow * sizeof(float));
  checkBuffer(kernel, "h", &h, rows * H * sizeof(float));
  const size_t stateBytes = size_t(shape.batch) * H * sizeof(float);
  if (h0) checkBuffer(kernel, "h0", h0, stateBytes);
  if (c0) checkBuffer(kernel, "c0", c0, stateBytes);
  // h_{t−1} of one sequence lives in shared memory.
  const SequenceGroup g = sequenceGroup(kernel, shader, dev_.info(), shape.channels);
  const bool lstm = gates == 4;
  const Kernel& k =
      shaderKernel(dev_, shader, {g.local}, lstm ? 9 : 7, sizeof(CellPush), {g.perInvocation});
  const uint32_t groups = std::min<uint32_t>(uint32_t(shape.batch), kMaxGroupsPerDimension);
  // The LSTM's cells between chunks; kept until this object goes, after the batch ran.
  const Buffer* carry = nullptr;
  if (lstm) carry = cellCarries_.emplace_back(dev_.buffer(stateBytes)).get();
  const uint32_t chunk = stepsPerDispatch(
      dev_.info(),
      recurrenceIterationsPerStep(g.perInvocation, uint32_t(gates), Whh.maxRowNonZeros, nonzeros));
  for (uint32_t t0 = 0; t0 < uint32_t(shape.steps); t0 += chunk) {
    const CellPush push{uint32_t(shape.batch),
                        uint32_t(shape.steps),
                        uint32_t(H),
                        h0 != nullptr,
                        option,
                        t0,
                        std::min(chunk, uint32_t(shape.steps) - t0)};
    // Absent initial states bind gi as a placeholder (never read).
    if (lstm)
      batch.dispatch(
          k, {Whh.rowPtr, Whh.col, Whh.val, &bhh, &gi, h0 ? h0 : &gi, &h, c0 ? c0 : &gi, carry},
          &push, sizeof push, groups);
    else
      batch.dispatch(k, {Whh.rowPtr, Whh.col, Whh.val, &bhh, &gi, h0 ? h0 : &gi, &h}, &push,
                     sizeof push, groups);
  }
}

void GatedCellKernels::recordGru(Batch& batch, const CsrBuffers& Whh, size_t nonzeros,
                                 const Buffer& bhh, const Buffer& gi, const Buffer* h0,
                                 const Buffer& h, const float_batch::SeriesShape& shape,
                                 float_batch::GruRule rule) {
  record(batch, kGru, "gru_recurrence", 3, Whh, nonzeros, bhh, gi, h0, nullptr, h, shape,
         rule == float_batch::GruRule::Paper ? 1 : 0);
}

void GatedCellKernels::recordLstm(Batch& batch, const CsrBuffers& Whh, size_t nonzeros,
                                  const Buffer& bhh, const Buffer& gi, const Buffer* h0,
                                  const Buffer* c0, const Buffer& h,
                                  const float_batch::SeriesShape& shape) {
  record(batch, kLstm, "lstm_recurrence", 4, Whh, nonzeros, bhh, gi, h0, c0, h, shape,
         c0 != nullptr);
}

// ------------------------------------------------------------------- host conveniences

namespace {

// Uploads a cell's arguments, lets `recordCell` append its dispatch, runs it, returns h.
template <class RecordCell>
std::vector<float> runCell(Device& dev, const float_batch::SeriesShape& shape,
                           const float_batch::CsrMatrix& Whh, std::span<const float> bhh,
                           std::span<const float> gi, std::span<const float> h0,
                           std::span<const float> c0, RecordCell recordCell) {
  const DeviceCsr W = uploadCsr(dev, Whh, bhh);
  auto giBuf = uploadFloats(dev, gi);
  auto h0Buf = h0.empty() ? nullptr : uploadFloats(dev, h0);
  auto c0Buf = c0.empty() ? nullptr : uploadFloats(dev, c0);
  const size_t n = size_t(shape.batch) * shape.steps * shape.channels;
  auto hBuf = dev.buffer(n * sizeof(float));
  Batch batch = dev.batch();
  recordCell(batch, CsrBuffers{W.rowPtr.get(), W.col.get(), W.val.get(), W.maxRowNonZeros},
             W.nonZeros, *W.bias, *giBuf, h0Buf.get(), c0Buf.get(), *hBuf);
  dev.run(batch);
  return dev.download<float>(*hBuf, n);
}

}  // namespace

std::vector<float> GatedCellKernels::gru(const float_batch::SeriesShape& shape,
                                         const float_batch::CsrMatrix& Whh,
                                         std::span<const float> bhh, std::span<const float> gi,
                                         std::span<const float> h0, float_batch::GruRule rule) {
  float_batch::gated_cell_checks::cell(kGru, shape, 3, Whh, bhh.size(), gi.size(), h0.size(), 0);
  return runCell(dev_, shape, Whh, bhh, gi, h0, {},
                 [&](Batch& batch, const CsrBuffers& W, size_t nnz, const Buffer& b,
                     const Buffer& g, const Buffer* h0Buf, const Buffer*,
                     const Buffer& h) { recordGru(batch, W, nnz, b, g, h0Buf, h, shape, rule); });
}

std::vector<float> GatedCellKernels::lstm(const float_batch::SeriesShape& shape,
                                          const float_batch::CsrMatrix& Whh,
                                          std::span<const float> bhh, std::span<const float> gi,
                                          std::span<const float> h0, std::span<const float> c0) {
  float_batch::gated_cell_checks::cell(kLstm, shape, 4, Whh, bhh.size(), gi.size(), h0.size(),
                                       c0.size());
  return runCell(dev_, shape, Whh, bhh, gi, h0, c0,
                 [&](Batch& batch, const CsrBuffers& W, size_t nnz, const Buffer& b,
                     const Buffer& g, const Buffer* h0Buf, const Buffer* c0Buf,
                     const Buffer& h) { recordLstm(batch, W, nnz, b, g, h0Buf, c0Buf, h, shape); });
}

}  // namespace lsrl::gpu
