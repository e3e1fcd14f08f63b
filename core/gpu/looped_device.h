// The looped transformer (core/seed_models/looped.h) on Vulkan: the model's forward pass in fp32
// with every loop of the block on the device, all loops recorded into one submission. Per
// loop t, over the rows (sequence, token) of the whole batch:
//   1. shaders/looped_norm.comp: the block input X^(t) (+ E when injecting) and
//      RMSN(·, α_1(t)) (α ⊙ x without a norm);
//   2. Q, K, V: the dense matvec of matvec_kernels.h (V from the un-normalised input with
//      baseline_compat);
//   3. shaders/looped_attention.comp: scores, softmax(λ) or hardmax, the causal mask and
//      the weighted sum of the values, one workgroup per (sequence, head, query);
//   4. W_O (dense matvec), then shaders/looped_residual.comp: X' = X + γ_1(t) ⊙ ·;
//   5. looped_norm.comp again (RMSN(X', α_2(t)); a plain copy with baseline_compat), fc1
//      (dense matvec), shaders/looped_activation.comp (GELU with erf, or ReLU), fc2, and
//      looped_residual.comp: X^(t+1) = X' + γ_2(t) ⊙ ·.
// On the host: the modulation table α(t), γ(t) for every loop (float64 by the model's
// timestep encoding, rounded to fp32 and uploaded once: it does not depend on the input)
// and the affine read-out L_2 (float64, from the device's last state).
//
// Trace (the CPU reference's names and shapes, LoopedModel::run): hidden, mid,
// attn_branch, mlp_branch and attention are the device's (each loop writes its slice of a
// trajectory buffer); alpha, gamma, pe, te are the host's float64 timestep code (the
// values the device's table was rounded from); step_norm, readout and output are derived
// on the host in float64 from the device's hidden states.
//
//   auto dev = gpu::Device::open();
//   seed_models::LoopedModel model;                        // default config
//   seed_models::Trace trace;
//   seed_models::Sequence y = gpu::runLoopedOnDevice(*dev, model, model.taskInput("random", 1),
//                                               &trace);   // [8][32]
//   auto ys = gpu::runLoopedOnDevice(*dev, model, batch);  // B sequences of one length
#pragma once

#include <vector>

#include "core/gpu/device.h"
#include "core/seed_models/looped.h"

namespace lsrl::gpu {

// One sequence, the config's number of loops: the read-out after the last loop (as
// LoopedModel::run). Throws lsrl::Error for a token of the wrong width (the CPU reference's
// message, prefixed "looped on Vulkan") or a sequence whose buffers (with `trace`: every
// loop's states and attention maps) exceed one storage buffer.
seed_models::Sequence runLoopedOnDevice(Device& dev, const seed_models::LoopedModel& model,
                                        const seed_models::Sequence& input,
                                        seed_models::Trace* trace = nullptr);

// Several sequences of one length at once (parallel over sequences, tokens and heads on
// the device; batches beyond one storage buffer run as several submissions). Throws
// lsrl::Error naming the sequence whose length or token width differs.
std::vector<seed_models::Sequence> runLoopedOnDevice(
    Device& dev, const seed_models::LoopedModel& model,
    const std::vector<seed_models::Sequence>& batch);

}  // namespace lsrl::gpu
