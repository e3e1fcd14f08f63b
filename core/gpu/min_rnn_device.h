// minGRU and minLSTM (core/seed_models/mingru.h, minlstm.h, min_rnn_model.h) on Vulkan: one
// entry point for both (they share MinRnnModel; the cell is a specialization constant),
// the forward pass in fp32 with each layer's cell on the device, one submission per layer
// over the whole batch:
//   1. shaders/min_rnn_gates.comp: from the Linears' pre-activations, element-wise, the
//      gates (minGRU z = σ(k); minLSTM f, i and the normalised f', i'), the candidate
//      h̃ = ĥ or g(ĥ), and the scan's leaves a_t (1 − z, f') and b_t = w_t ⊙ h̃_t;
//   2. the real diagonal scan of scan_kernels.h, h_t = a_t ⊙ h_{t−1} + b_t, with full
//      strides (a varies with sequence and step), from the model's h_0.
// The model's mode picks the scan's path: "sequential" runs ScanPath::Sequential (one
// invocation per unit walks all T), "parallel" the chunked scan (ScanPath::Auto: subgroup
// shuffles where the device has them, else shared memory). "log_space" (Heinsen's scan on
// logarithms) runs as the chunked linear-space scan: fp32 has the range for these lengths
// and gates (the log trick guards float64 training over thousands of steps against
// products underflowing), so the device computes the same function without it. A path
// given in `options` (not Auto) overrides the mode's.
// On the host, in float64 (MinRnnModel's steps): the embedding, the LayerNorms, the
// Linears of the cell (pre-activations, rounded to fp32 and uploaded), the projection
// back W_out h + b_out with the skip, and the head.
//
// Trace (the CPU reference's names and shapes, MinRnnModel::addLayerTrace): z / f, i,
// f_prime, i_prime, h_tilde and hidden are the device's; z_pre / f_pre, i_pre, h_pre and
// h0 are the host's float64 values the device's inputs were rounded from (for layer l ≥ 1
// computed from the device's output of the layer before); layer_output and output are
// derived on the host from the device's states; attention, retention and
// mode_difference are computed on the host from the float64 gates as the CPU reference
// does them (mode_difference compares the float64 modes with each other).
//
//   auto dev = gpu::Device::open();
//   seed_models::MinGruModel model;                        // default config (or MinLstmModel)
//   seed_models::Trace trace;
//   seed_models::Sequence logits = gpu::runMinRnnOnDevice(
//       *dev, model, model.taskInput("selective_copy", 3), &trace);   // [68][16]
//   auto many = gpu::runMinRnnOnDevice(*dev, model, batch);         // B sequences, one T
//   double ms = gpu::timeMinGruScanMs(*dev, 4, 4096, 256, gpu::ScanPath::Auto);
#pragma once

#include <vector>

#include "core/gpu/device.h"
#include "core/gpu/scan_kernels.h"
#include "core/seed_models/min_rnn_model.h"

namespace lsrl::gpu {

// One sequence: the logits (as MinRnnModel::run). Throws lsrl::Error for a token of the
// wrong width (the CPU reference's message, prefixed "<kind> on Vulkan").
seed_models::Sequence runMinRnnOnDevice(Device& dev, const seed_models::MinRnnModel& model,
                                        const seed_models::Sequence& input,
                                        seed_models::Trace* trace = nullptr,
                                        const ScanOptions& options = {});

// Several sequences of one length at once (parallel over sequences and units; batches
// beyond one storage buffer or 65,535 sequences run as several passes). Throws
// lsrl::Error naming the sequence whose length or token width differs.
std::vector<seed_models::Sequence> runMinRnnOnDevice(
    Device& dev, const seed_models::MinRnnModel& model,
    const std::vector<seed_models::Sequence>& batch, const ScanOptions& options = {});

// The scan options a model's mode runs with (see above): `options` with its path set from
// the mode when it is Auto.
ScanOptions minRnnScanOptions(seed_models::MinRnnMode mode, ScanOptions options = {});

// The cell alone (the twin of the cells' gates plus minRnnRun) for inputs of one shape.
struct MinRnnCellInputs {
  // The pre-activations of the cell's Linears (minRnnGateLinears' order, then "h"), each
  // [T][width]: minGRU k, ĥ; minLSTM p, k, ĥ.
  std::vector<std::vector<double>> pre;
  std::vector<double> h0;  // [width]: the state the recurrence starts from; empty: zeros
};
struct MinRnnCellResult {
  std::vector<double> hidden;  // [T][width] h_1..h_T
  // With keepGates: h̃ [T][width] and the gate arrays, each [T][width] (minGRU: z;
  // minLSTM: f, i, f', i').
  std::vector<double> candidate;
  std::vector<std::vector<double>> gates;
};
// Throws lsrl::Error naming the input whose arrays do not match the shape of input 0.
std::vector<MinRnnCellResult> runMinRnnCellOnDevice(Device& dev, seed_models::MinRnnCell cell,
                                                    seed_models::MinRnnVariant variant, int width,
                                                    const std::vector<MinRnnCellInputs>& inputs,
                                                    bool keepGates = false,
                                                    const ScanOptions& options = {});

// GPU time (ms, median of 5 runs after a warm-up, ScanKernels::timeDiagScan) of the
// device scan of a minGRU layer of `channels` units over batch × steps tokens with
// random gates (a = 1 − z in (0.5, 1), b in [−1, 1]) on `path` (Sequential: the
// sequential mode; Auto, Subgroup, Shared: the chunked scan). Throws lsrl::Error for bad
// sizes or a device without timestamps.
double timeMinGruScanMs(Device& dev, int batch, int steps, int channels, ScanPath path);

}  // namespace lsrl::gpu
