// GateLoop (core/seed_models/gateloop.h) on Vulkan: the model's forward pass in fp32 with the
// GateLoop operator on the device, one submission per layer over the whole batch:
//   1. shaders/gateloop_leaves.comp: the scan leaves per state entry (b, t, head, r, c),
//      B = k[r]·v[c] and, for d_h > 1, a[r] expanded over the columns (a scales the key
//      rows, docs/spec/seed-models.md §2.1; with d_h = 1 the scan reads a as it is);
//   2. the complex diagonal scan of scan_kernels.h over time, every entry of every head's
//      d_h × d_h state a channel (full strides: a varies with b and t), from H_0;
//   3. shaders/gateloop_readout.comp: y_t = H_tᵀ q_t per head.
// On the host, in float64 (GateLoopModel's steps): embedding, LayerNorms, the projections
// q, k, v, γ_pre, θ_pre and the transition a = exp(log a) (then rounded to fp32 and
// uploaded: exp/cos/sin of an unbounded phase are more exact there), Re(y), the output
// projection, skips, channel mixing and the head.
//
// Trace (the CPU reference's names and shapes, GateLoopModel::addLayerTrace): state and y
// are the device's; gamma_pre, theta_pre, q, k, v, a_magnitude, a_phase, memory_length,
// prefix_log and layer_output are the host's float64 values (for layer l ≥ 1 computed
// from the device's output of the layer before); attention and mode_difference are
// computed on the host from the layer's operator inputs as the CPU reference does them
// (they compare the float64 modes; the device's own difference is what the tests check).
//
//   auto dev = gpu::Device::open();
//   seed_models::GateLoopModel model;                     // default config
//   seed_models::Trace trace;
//   seed_models::Sequence logits = gpu::runGateLoopOnDevice(
//       *dev, model, model.taskInput("memory_horizon", 1), &trace);   // [64][50]
//   auto many = gpu::runGateLoopOnDevice(*dev, model, batch);         // B sequences, one T
#pragma once

#include <vector>

#include "core/gpu/device.h"
#include "core/gpu/scan_kernels.h"
#include "core/seed_models/gateloop.h"

namespace lsrl::gpu {

// One sequence: the logits (as GateLoopModel::run). Throws lsrl::Error for a token of the
// wrong width (the CPU reference's message, prefixed "gateloop on Vulkan") or a sequence
// too long for one storage buffer. `options` picks the scan's path and chunk size.
seed_models::Sequence runGateLoopOnDevice(Device& dev, const seed_models::GateLoopModel& model,
                                          const seed_models::Sequence& input,
                                          seed_models::Trace* trace = nullptr,
                                          const ScanOptions& options = {});

// Several sequences of one length at once (parallel over sequences, heads and state
// entries; batches beyond one storage buffer or 65,535 sequences run as several passes).
// Throws lsrl::Error naming the sequence whose length or token width differs.
std::vector<seed_models::Sequence> runGateLoopOnDevice(
    Device& dev, const seed_models::GateLoopModel& model,
    const std::vector<seed_models::Sequence>& batch, const ScanOptions& options = {});

// The operator alone (gateLoopRecurrent's twin) for inputs of one shape (heads, d_h,
// steps); a non-empty h0 is the initial state (all-zero for an input without one).
struct GateLoopDeviceResult {
  std::vector<seed_models::Complex> y;       // [T][heads·d_h]
  std::vector<seed_models::Complex> states;  // [T][heads][d_h][d_h] (with keepStates)
};
// Throws lsrl::Error naming the input whose arrays or shape do not match.
std::vector<GateLoopDeviceResult> runGateLoopOperatorOnDevice(
    Device& dev, const std::vector<seed_models::GateLoopInputs>& inputs, bool keepStates = false,
    const ScanOptions& options = {});

}  // namespace lsrl::gpu
