#include "core/gpu/device_models.h"

#include <map>
#include <string>
#include <vector>

#include "core/gpu/gateloop_device.h"
#include "core/gpu/lattice_device.h"
#include "core/gpu/looped_device.h"
#include "core/gpu/min_rnn_device.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

using seed_models::SeedModel;
using seed_models::Sequence;
using seed_models::Trace;

// A seed model's device backend: which models it runs, and its two entry points.
struct DeviceBackend {
  bool (*matches)(const SeedModel& model);
  Sequence (*runOne)(Device& dev, const SeedModel& model, const Sequence& input, Trace* trace);
  std::vector<Sequence> (*runBatch)(Device& dev, const SeedModel& model,
                                    const std::vector<Sequence>& batch);
};

// The row for the models of type `Model`, recognised by a dynamic_cast (so that
// MinRnnModel's row serves minGRU and minLSTM alike). `Run` is a captureless lambda that
// forwards to the backend's two overloads (one sequence with a trace, a batch of one
// length): the row's plain function pointers construct it where they are called.
template <class Model, class Run>
constexpr DeviceBackend backendOf(Run /*overloads*/) {
  return {[](const SeedModel& model) { return dynamic_cast<const Model*>(&model) != nullptr; },
          [](Device& dev, const SeedModel& model, const Sequence& input, Trace* trace) {
            return Run{}(dev, dynamic_cast<const Model&>(model), input, trace);
          },
          [](Device& dev, const SeedModel& model, const std::vector<Sequence>& batch) {
            return Run{}(dev, dynamic_cast<const Model&>(model), batch);
          }};
}

// Every seed model with a Vulkan backend; adding one is one row.
const DeviceBackend kDeviceBackends[] = {
    backendOf<seed_models::LatticeModel>([](auto&... args) { return runLatticeOnDevice(args...); }),
    backendOf<seed_models::GateLoopModel>(
        [](auto&... args) { return runGateLoopOnDevice(args...); }),
    backendOf<seed_models::LoopedModel>([](auto&... args) { return runLoopedOnDevice(args...); }),
    backendOf<seed_models::MinRnnModel>([](auto&... args) { return runMinRnnOnDevice(args...); }),
};

// Throws lsrl::Error "<kind> has no Vulkan backend" for a model without a row.
const DeviceBackend& backendFor(const SeedModel& model) {
  for (const DeviceBackend& backend : kDeviceBackends)
    if (backend.matches(model)) return backend;
  throw Error(model.kind() + " has no Vulkan backend");
}

// Sequences of one length through the model's batched backend.
std::vector<Sequence> runOneLength(Device& dev, const SeedModel& model,
                                   const std::vector<Sequence>& batch) {
  return backendFor(model).runBatch(dev, model, batch);
}

}  // namespace

Sequence runSeedModelOnDevice(Device& dev, const SeedModel& model, const Sequence& input,
                              Trace* trace) {
  return backendFor(model).runOne(dev, model, input, trace);
}

std::vector<Sequence> runSeedModelBatchOnDevice(Device& dev, const SeedModel& model,
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
