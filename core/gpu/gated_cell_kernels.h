// The gated cells on Vulkan, twins of core/float_batch/gated_cells.h (same layouts, same
// arguments): the sequential part of one GRU or LSTM layer with ReLU gates, after the
// caller's input projection gi = W_ih x + b_ih. One workgroup per sequence runs all T
// steps (shaders/gated_cell.glsl), like the general CSR recurrence (scan_kernels.h).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/float_batch/gated_cells.h"
#include "core/float_batch/layouts.h"
#include "core/gpu/device.h"
#include "core/gpu/scan_kernels.h"  // CsrBuffers

namespace lsrl::gpu {

class GatedCellKernels {
 public:
  explicit GatedCellKernels(Device& device) : dev_(device) {}

  // Append the dispatch writing h ([b][t][H]). Whh is gates·H × H with `nonzeros` entries,
  // bhh gates·H floats, gi [b][t][gates·H]; h0 and c0 may be null (zero state). Throws
  // lsrl::Error (naming the kernel, expected vs got) for bad shapes or too-small buffers.
  void recordGru(Batch& batch, const CsrBuffers& Whh, size_t nonzeros, const Buffer& bhh,
                 const Buffer& gi, const Buffer* h0, const Buffer& h,
                 const float_batch::SeriesShape& shape, float_batch::GruRule rule);
  void recordLstm(Batch& batch, const CsrBuffers& Whh, size_t nonzeros, const Buffer& bhh,
                  const Buffer& gi, const Buffer* h0, const Buffer* c0, const Buffer& h,
                  const float_batch::SeriesShape& shape);

  // Host conveniences with the arguments of the CPU twins (h0, c0 empty: zero state).
  std::vector<float> gru(const float_batch::SeriesShape& shape, const float_batch::CsrMatrix& Whh,
                         std::span<const float> bhh, std::span<const float> gi,
                         std::span<const float> h0, float_batch::GruRule rule);
  std::vector<float> lstm(const float_batch::SeriesShape& shape, const float_batch::CsrMatrix& Whh,
                          std::span<const float> bhh, std::span<const float> gi,
                          std::span<const float> h0, std::span<const float> c0);

 private:
  // Checks the buffers of a `gates`-gate cell and records `shader` over them.
  void record(Batch& batch, const char* kernel, const char* shader, int gates,
              const CsrBuffers& Whh, size_t nonzeros, const Buffer& bhh, const Buffer& gi,
              const Buffer* h0, const Buffer* c0, const Buffer& h,
              const float_batch::SeriesShape& shape, uint32_t option);

  Device& dev_;
  std::vector<std::shared_ptr<Buffer>> cellCarries_;  // see record()
};

}  // namespace lsrl::gpu
