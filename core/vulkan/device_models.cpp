#include "core/vulkan/device_models.h"

#include <map>
#include <string>

#include "core/util/error.h"
#include "core/vulkan/gateloop_device.h"
#include "core/vulkan/lattice_device.h"
#include "core/vulkan/looped_device.h"
#include "core/vulkan/min_rnn_device.h"

namespace lsrl::gpu {

namespace {

using models::Sequence;

Error noBackend(const models::SeedModel& model) {
  return Error(model.kind() + " has no Vulkan backend");
}

// Sequences of one length through the model's batched backend.
std::vector<Sequence> runOneLength(Device& dev, const models::SeedModel& model,
                                   const std::vector<Sequence>& batch) {
  if (const auto* lattice = dynamic_cast<const models::LatticeModel*>(&model))
    return runLatticeOnDevice(dev, *lattice, batch);
  if (const auto* gateloop = dynamic_cast<const models::GateLoopModel*>(&model))
    return runGateLoopOnDevice(dev, *gateloop, batch);
  if (const auto* looped = dynamic_cast<const models::LoopedModel*>(&model))
    return runLoopedOnDevice(dev, *looped, batch);
  if (const auto* minRnn = dynamic_cast<const models::MinRnnModel*>(&model))
    return runMinRnnOnDevice(dev, *minRnn, batch);
  throw noBackend(model);
}

}  // namespace

Sequence runSeedModelOnDevice(Device& dev, const models::SeedModel& model, const Sequence& input,
                              models::Trace* trace) {
  if (const auto* lattice = dynamic_cast<const models::LatticeModel*>(&model))
    return runLatticeOnDevice(dev, *lattice, input, trace);
  if (const auto* gateloop = dynamic_cast<const models::GateLoopModel*>(&model))
    return runGateLoopOnDevice(dev, *gateloop, input, trace);
  if (const auto* looped = dynamic_cast<const models::LoopedModel*>(&model))
    return runLoopedOnDevice(dev, *looped, input, trace);
  if (const auto* minRnn = dynamic_cast<const models::MinRnnModel*>(&model))
    return runMinRnnOnDevice(dev, *minRnn, input, trace);
  throw noBackend(model);
}

std::vector<Sequence> runSeedModelBatchOnDevice(Device& dev, const models::SeedModel& model,
                                                const std::vector<Sequence>& inputs) {
  std::map<size_t, std::vector<size_t>> byLength;  // length → input indices, in order
  for (size_t i = 0; i < inputs.size(); ++i) byLength[inputs[i].size()].push_back(i);
  if (byLength.size() <= 1) return inputs.empty() ? inputs : runOneLength(dev, model, inputs);
  std::vector<Sequence> outputs(inputs.size());
  for (const auto& [length, indices] : byLength) {
    std::vector<Sequence> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(inputs[i]);
    std::vector<Sequence> ys;
    try {
      ys = runOneLength(dev, model, batch);
    } catch (const Error& e) {
      throw Error("the " + std::to_string(indices.size()) + " sequences of " +
                  std::to_string(length) + " tokens (the first is input " +
                  std::to_string(indices[0]) + "): " + e.what());
    }
    for (size_t k = 0; k < indices.size(); ++k) outputs[indices[k]] = std::move(ys[k]);
  }
  return outputs;
}

}  // namespace lsrl::gpu
