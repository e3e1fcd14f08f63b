// Lattice (core/seed_models/lattice.h) on Vulkan: the model's forward pass in fp32 with its
// recurrence on the device (shaders/lattice_step.comp). One workgroup per (sequence, head)
// walks the tokens with the slots in shared memory; every mode, variant and β form of
// lattice_step.h, and §1.7's chunked approximation, run there. T runs as dispatches of
// latticeStepsPerDispatch steps in one submission, each continuing from the state the last
// left in a device buffer (lavapipe silently stops a shader's loops after 65,535 iterations
// per invocation, and drivers' watchdogs end long dispatches).
//
// On the host, through LatticeModel's steps (embed, layerInputs, layerOutput, head: the
// code run() uses, in float64): the per-token projections (k, v, q, γ, μ with §1.8's conv and
// l2 keys, LatticeModel::headTokens, then rounded to fp32 and uploaded), the output gate of
// §1.8 (from the device's y), and with input "tokens" (§1.8a) the embedding, LayerNorms,
// residuals, MLP and head around each layer's recurrence, one device pass per layer (layer
// l ≥ 1 reads the stream built from layer l − 1's fp32 y). The trace has the CPU
// reference's array names and shapes (layer l ≥ 1's under "layer<l>/"):
//   from the device: y, slots (S_t), incoming (h_t), error, write_strength (α), beta,
//     pre_norms (‖s̃‖), guarded; slots_initial, k, v, q, gamma, mu are the uploaded inputs;
//   derived on the host in float64 from the device's slots: parallel, orthogonal, delta,
//     theta, cos_in, perp_frac and loss_before (the reference step latticeStep applied to
//     the device's S_{t−1}, or S_{t0} inside a chunk), loss_after (latticeLoss at the
//     device's S_t), slot_norms, slot_cosines; output (and mixer_output) from y.
// The slots of one head must fit in shared memory (m·d floats, three times that with
// chunk > 1); larger heads are refused naming m·d and the limit.
//
//   auto dev = gpu::Device::open();
//   seed_models::LatticeModel model(seed_models::LatticeConfig{});
//   seed_models::Trace trace;
//   seed_models::Sequence y = gpu::runLatticeOnDevice(*dev, model, model.taskInput("rotating", 1),
//                                                &trace);
//   auto ys = gpu::runLatticeOnDevice(*dev, model, batch);  // B sequences of one length
#pragma once

#include <cstdint>
#include <vector>

#include "core/gpu/device.h"
#include "core/seed_models/lattice.h"

namespace lsrl::gpu {

// One sequence: the model's output rows (as LatticeModel::run). Throws lsrl::Error for a
// token of the wrong width (as the CPU reference) or heads too large for the device.
seed_models::Sequence runLatticeOnDevice(Device& dev, const seed_models::LatticeModel& model,
                                         const seed_models::Sequence& input,
                                         seed_models::Trace* trace = nullptr);

// Several sequences of one length at once (parallel over sequences and heads on the
// device; batches beyond one storage buffer run as several dispatches). Throws lsrl::Error
// naming the sequence whose length or token width differs.
std::vector<seed_models::Sequence> runLatticeOnDevice(
    Device& dev, const seed_models::LatticeModel& model,
    const std::vector<seed_models::Sequence>& batch);

// Time steps per dispatch for `config` on a device like `info` (with or without a trace):
// a bound on one invocation's loop iterations per step keeps each dispatch at a quarter
// of lavapipe's 65,535 (stepsPerDispatch, core/gpu/kernel_support.h).
uint32_t latticeStepsPerDispatch(const DeviceInfo& info, const seed_models::LatticeConfig& config,
                                 bool trace);

}  // namespace lsrl::gpu
