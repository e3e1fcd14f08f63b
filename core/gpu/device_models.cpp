#include "core/gpu/device_models.h"

#include <map>
#include <string>
#include <vector>

#include "core/gpu/gateloop_device.h"
#include "core/gpu/lattice_device.h"
#include "core/gpu/looped_device.h"
#include "core/gpu/min_rnn_device.h"
#include "core/gpu/min_rnn_resident.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

using seed_models::SeedModel;
using seed_models::Sequence;
using seed_models::Trace;

using OneLength = std::function<std::vector<Sequence>(const std::vector<Sequence>&)>;

// Sequences of any lengths through `runOneLength` (a backend needs one length), one call
// per length, the outputs in the inputs' order; an error names the length and its first
// input.
std::vector<Sequence> runByLength(const std::vector<Sequence>& inputs,
                                  const OneLength& runOneLength) {
  std::map<size_t, std::vector<size_t>> byLength;  // length → input indices, in order
  for (size_t i = 0; i < inputs.size(); ++i) byLength[inputs[i].size()].push_back(i);
  if (byLength.size() <= 1) return inputs.empty() ? inputs : runOneLength(inputs);
  std::vector<Sequence> outputs(inputs.size());
  for (const auto& [length, indices] : byLength) {
    std::vector<Sequence> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(inputs[i]);
    std::vector<Sequence> ys;
    try {
      ys = runOneLength(batch);
    } catch (const Error& e) {
      throw Error("the " + std::to_string(indices.size()) + " sequences of " +
                  std::to_string(length) + " tokens (the first is input " +
                  std::to_string(indices[0]) + "): " + e.what());
    }
    for (size_t k = 0; k < indices.size(); ++k) outputs[indices[k]] = std::move(ys[k]);
  }
  return outputs;
}

// A backend that keeps the model's layers on the device (`Resident`: constructed from the
// device and the model, with run(batch) over one length).
template <class Resident, class Model>
class ResidentSeedModel final : public DeviceSeedModel {
 public:
  ResidentSeedModel(Device& dev, const Model& model) : resident_(dev, model) {}
  std::vector<Sequence> run(const std::vector<Sequence>& inputs) override {
    return runByLength(inputs, [&](const std::vector<Sequence>& b) { return resident_.run(b); });
  }

 private:
  Resident resident_;
};

// A seed model's device backend: which models it runs, its two entry points, and where
// it has one, the backend with every layer on the device.
struct DeviceBackend {
  bool (*matches)(const SeedModel& model);
  Sequence (*runOne)(Device& dev, const SeedModel& model, const Sequence& input, Trace* trace);
  std::vector<Sequence> (*runBatch)(Device& dev, const SeedModel& model,
                                    const std::vector<Sequence>& batch);
  std::unique_ptr<DeviceSeedModel> (*resident)(Device& dev, const SeedModel& model) = nullptr;
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

// The same with `Resident` as the backend that keeps the layers on the device.
template <class Model, class Resident, class Run>
constexpr DeviceBackend residentBackendOf(Run overloads) {
  DeviceBackend row = backendOf<Model>(overloads);
  row.resident = [](Device& dev, const SeedModel& model) -> std::unique_ptr<DeviceSeedModel> {
    return std::make_unique<ResidentSeedModel<Resident, Model>>(dev,
                                                                dynamic_cast<const Model&>(model));
  };
  return row;
}

// Every seed model with a Vulkan backend; adding one is one row.
const DeviceBackend kDeviceBackends[] = {
    backendOf<seed_models::LatticeModel>([](auto&... args) { return runLatticeOnDevice(args...); }),
    backendOf<seed_models::GateLoopModel>(
        [](auto&... args) { return runGateLoopOnDevice(args...); }),
    backendOf<seed_models::LoopedModel>([](auto&... args) { return runLoopedOnDevice(args...); }),
    residentBackendOf<seed_models::MinRnnModel, MinRnnResident>(
        [](auto&... args) { return runMinRnnOnDevice(args...); }),
};

// Throws lsrl::Error "<kind> has no Vulkan backend" for a model without a row.
const DeviceBackend& backendFor(const SeedModel& model) {
  for (const DeviceBackend& backend : kDeviceBackends)
    if (backend.matches(model)) return backend;
  throw Error(model.kind() + " has no Vulkan backend");
}

// Through the model's per-call backend.
class PerCallSeedModel final : public DeviceSeedModel {
 public:
  PerCallSeedModel(Device& dev, const SeedModel& model, const DeviceBackend& backend)
      : dev_(dev), model_(model), backend_(backend) {}
  std::vector<Sequence> run(const std::vector<Sequence>& inputs) override {
    return runByLength(inputs, [&](const std::vector<Sequence>& batch) {
      return backend_.runBatch(dev_, model_, batch);
    });
  }

 private:
  Device& dev_;
  const SeedModel& model_;
  const DeviceBackend& backend_;
};

}  // namespace

Sequence runSeedModelOnDevice(Device& dev, const SeedModel& model, const Sequence& input,
                              Trace* trace) {
  return backendFor(model).runOne(dev, model, input, trace);
}

std::vector<Sequence> runSeedModelBatchOnDevice(Device& dev, const SeedModel& model,
                                                const std::vector<Sequence>& inputs) {
  return PerCallSeedModel(dev, model, backendFor(model)).run(inputs);
}

std::unique_ptr<DeviceSeedModel> deviceSeedModel(Device& dev, const SeedModel& model,
                                                 SeedModelLayers layers) {
  const DeviceBackend& backend = backendFor(model);
  const bool onDevice = layers == SeedModelLayers::OnDevice ||
                        (layers == SeedModelLayers::Auto && !isCpuDriver(dev.info()));
  if (onDevice && backend.resident != nullptr) return backend.resident(dev, model);
  return std::make_unique<PerCallSeedModel>(dev, model, backend);
}

}  // namespace lsrl::gpu
