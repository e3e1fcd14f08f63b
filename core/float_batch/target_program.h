// The target architectures (core/targets: the NF family, gru, lstm, hawk) as fp32 layer
// programs, so the batch runners (cpu_runner.h and its Vulkan twin) run every target the
// compiler builds — from the float64 weights, as a weight file holds them:
//
//   FloatTargetModel m = readTargetModel("model.safetensors");
//   LayerProgram p = layerProgramFromTarget(m);
//   auto y = runLayersCpu(p, {B, T, p.inputWidth}, tokens);
//
// Each layer names what it computes ("gru layer 1: W_ih", "hawk block 0: conv1d"), the
// per-layer trace's labels. Every value is the nearest float of the float64 weight.
#pragma once

#include "core/float_batch/layer_program.h"
#include "core/targets/targets.h"

namespace lsrl::float_batch {

LayerProgram layerProgramFromTarget(const FloatTargetModel& model);

}  // namespace lsrl::float_batch
