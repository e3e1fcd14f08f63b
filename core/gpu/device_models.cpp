#include "core/gpu/device_models.h"

#include <map>
#include <string>

#include "core/gpu/gateloop_device.h"
#include "core/gpu/lattice_device.h"
#include "core/gpu/looped_device.h"
#include "core/gpu/min_rnn_device.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

using seed_models::Sequence;

Error noBackend(const seed_models::SeedModel& model) {
  return Error(model.kind() + " has no Vulkan backend");
}

// Sequences of one length through the model's batched backend.
std::vector<Sequence> runOneLength(Device& dev, const seed_models::SeedModel& model,
                                   const std::vector<Sequence>& batch) {
  if (const auto* lattice = dynamic_cast<const seed_models::LatticeModel*>(&model))
    return runLatticeOnDevice(dev, *lattice, batch);
  if (const auto* gateloop = dynamic_cast<const seed_models::GateLoopModel*>(&model))
    return runGateLoopOnDevice(dev, *gateloop, batch);
  if (const auto* looped = dynamic_cast<const seed_models::LoopedModel*>(&model))
    return runLoopedOnDevice(dev, *looped, batch);
  if (const auto* minRnn = dynamic_cast<const seed_models::MinRnnModel*>(&model))
    return runMinRnnOnDevice(dev, *minRnn, batch);
  throw noBackend(model);
}

}  // namespace

Sequence runSeedModelOnDevice(Device& dev, const seed_models::SeedModel& model,
                              const Sequence& input, seed_models::Trace* trace) {
  if (const auto* lattice = dynamic_cast<const seed_models::LatticeModel*>(&model))
    return runLatticeOnDevice(dev, *lattice, input, trace);
  if (const auto* gateloop = dynamic_cast<const seed_models::GateLoopModel*>(&model))
    return runGateLoopOnDevice(dev, *gateloop, input, trace);
  if (const auto* looped = dynamic_cast<const seed_models::LoopedModel*>(&model))
    return runLoopedOnDevice(dev, *looped, input, trace);
  if (const auto* minRnn = dynamic_cast<const seed_models::MinRnnModel*>(&model))
    return runMinRnnOnDevice(dev, *minRnn, input, trace);
  throw noBackend(model);
}

std::vector<Sequence> runSeedModelBatchOnDevice(Device& dev, const seed_models::SeedModel& model,
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
