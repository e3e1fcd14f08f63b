#include "core/vulkan/device_models.h"

#include "core/util/error.h"
#include "core/vulkan/gateloop_device.h"
#include "core/vulkan/lattice_device.h"
#include "core/vulkan/looped_device.h"
#include "core/vulkan/min_rnn_device.h"

namespace lsrl::gpu {

models::Sequence runSeedModelOnDevice(Device& dev, const models::SeedModel& model,
                                      const models::Sequence& input, models::Trace* trace) {
  if (const auto* lattice = dynamic_cast<const models::LatticeModel*>(&model))
    return runLatticeOnDevice(dev, *lattice, input, trace);
  if (const auto* gateloop = dynamic_cast<const models::GateLoopModel*>(&model))
    return runGateLoopOnDevice(dev, *gateloop, input, trace);
  if (const auto* looped = dynamic_cast<const models::LoopedModel*>(&model))
    return runLoopedOnDevice(dev, *looped, input, trace);
  if (const auto* minRnn = dynamic_cast<const models::MinRnnModel*>(&model))
    return runMinRnnOnDevice(dev, *minRnn, input, trace);
  throw Error(model.kind() + " has no Vulkan backend");
}

}  // namespace lsrl::gpu
