// minGRU and minLSTM with every layer on the device, for scoring many batches
// (`lsrl model eval --backend vulkan`, device_models.h's DeviceSeedModel): the embedding,
// each layer's LayerNorm, the cell's Linears, gates and scan, the projection back and the
// skip, and the head, in fp32, one submission per batch. The weights are uploaded once and
// the batch buffers kept for the next batch of the same shape.
//
// min_rnn_device.h keeps those layers in float64 on the host around the device's cell; it
// records the CPU reference's trace. Here the host only uploads tokens and reads logits:
// measured on lavapipe, the host layers were three quarters of an eval's wall time
// (docs/vulkan.md, "Where the time goes").
//
//   gpu::MinRnnResident resident(*dev, model);
//   std::vector<seed_models::Sequence> logits = resident.run(batch);   // one length
#pragma once

#include <memory>
#include <vector>

#include "core/gpu/device.h"
#include "core/gpu/scan_kernels.h"
#include "core/seed_models/min_rnn_model.h"

namespace lsrl::gpu {

class MinRnnResident {
 public:
  // Uploads the weights. `options` as runMinRnnOnDevice's (the model's mode picks the path).
  MinRnnResident(Device& dev, const seed_models::MinRnnModel& model,
                 const ScanOptions& options = {});
  ~MinRnnResident();
  MinRnnResident(const MinRnnResident&) = delete;
  MinRnnResident& operator=(const MinRnnResident&) = delete;

  // The logits of sequences of one length (as MinRnnModel::run, in fp32). Throws lsrl::Error
  // "<kind> on Vulkan: sequence <b>: ..." for a sequence of another length or token width
  // (the messages of runMinRnnOnDevice).
  std::vector<seed_models::Sequence> run(const std::vector<seed_models::Sequence>& batch);

 private:
  struct Weights;
  struct Buffers;
  // Records and runs sequences [first, first + count) of `batch`.
  void runPass(const std::vector<seed_models::Sequence>& batch, size_t first, size_t count,
               std::vector<seed_models::Sequence>& out);

  Device& dev_;
  const seed_models::MinRnnModel& model_;
  ScanOptions scan_;
  std::unique_ptr<Weights> weights_;
  std::unique_ptr<Buffers> buffers_;  // for the last shape run
};

}  // namespace lsrl::gpu
