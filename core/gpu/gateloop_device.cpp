#include "core/gpu/gateloop_device.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "core/gpu/embed_and_head.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"
#include "core/util/parallel_for.h"

namespace lsrl::gpu {

namespace {

using seed_models::Complex;
using seed_models::GateLoopInputs;
using seed_models::GateLoopModel;
using seed_models::Sequence;

constexpr const char* kGateLoopOnVulkan = "gateloop on Vulkan";

// The shaders' push constants.
struct LeafPush {
  uint32_t count, width, dh, expandA;
};
struct ReadoutPush {
  uint32_t count, width, dh;
};

// The shape every input of one operator call shares.
struct OperatorShape {
  size_t heads = 0, dh = 0, steps = 0;
  size_t width() const { return heads * dh; }      // C: q, k, v, a, y per token
  size_t entries() const { return width() * dh; }  // state entries per token
};

OperatorShape shapeOf(const GateLoopInputs& in) {
  return {static_cast<size_t>(in.heads), static_cast<size_t>(in.dh), static_cast<size_t>(in.steps)};
}

Error numbered(const char* item, size_t i, const std::string& what) {
  return Error(std::string(kGateLoopOnVulkan) + ": " + item + " " + std::to_string(i) + ": " +
               what);
}

// Inputs per pass so that every buffer (the widest: the states) stays within the device's
// range and the scan's grid (at most 65,535 workgroups along the batch).
size_t inputsPerPass(const DeviceInfo& info, const OperatorShape& s) {
  const size_t bytes = std::max<size_t>(s.steps * s.entries(), 1) * 2 * sizeof(float);
  if (bytes > info.maxStorageBufferRange)
    throw Error(std::string(kGateLoopOnVulkan) + ": one sequence of " + std::to_string(s.steps) +
                " tokens with " + std::to_string(s.entries()) + " state entries per token needs " +
                std::to_string(bytes) + " bytes in one buffer, the device's range is " +
                std::to_string(info.maxStorageBufferRange));
  return std::min<size_t>(info.maxStorageBufferRange / bytes, kMaxGroupsPerDimension);
}

// What one pass downloads, fp32 (re, im) interleaved: y [b][t][C], states [b][t][C·d_h].
struct GateLoopPass {
  std::vector<float> y, states;
};

GateLoopPass runPass(Device& dev, std::span<const GateLoopInputs> ins, const OperatorShape& s,
                     bool keepStates, const ScanOptions& options) {
  const size_t B = ins.size(), T = s.steps, C = s.width();
  const size_t tokens = B * T, entries = tokens * s.entries();
  std::vector<float> a(2 * tokens * C), q(tokens * C), k(tokens * C), v(tokens * C), h0;
  const bool hasH0 =
      std::any_of(ins.begin(), ins.end(), [](const GateLoopInputs& in) { return !in.h0.empty(); });
  if (hasH0) h0.assign(2 * B * s.entries(), 0.0f);
  for (size_t b = 0; b < B; ++b) {
    const GateLoopInputs& in = ins[b];
    for (size_t i = 0; i < T * C; ++i) {
      const size_t at = b * T * C + i;
      const Complex ai = std::exp(in.logA[i]);  // float64, then rounded
      a[2 * at] = static_cast<float>(ai.real());
      a[2 * at + 1] = static_cast<float>(ai.imag());
      q[at] = static_cast<float>(in.q[i]);
      k[at] = static_cast<float>(in.k[i]);
      v[at] = static_cast<float>(in.v[i]);
    }
    for (size_t i = 0; i < in.h0.size(); ++i) {
      h0[2 * (b * s.entries() + i)] = static_cast<float>(in.h0[i].real());
      h0[2 * (b * s.entries() + i) + 1] = static_cast<float>(in.h0[i].imag());
    }
  }
  auto aBuf = uploadFloats(dev, a), qBuf = uploadFloats(dev, q), kBuf = uploadFloats(dev, k),
       vBuf = uploadFloats(dev, v);
  auto h0Buf = hasH0 ? uploadFloats(dev, h0) : nullptr;
  const size_t seriesBytes = entries * 2 * sizeof(float);
  const bool expand = s.dh > 1;  // with d_h = 1 the scan reads a as uploaded
  auto aFull = expand ? dev.buffer(seriesBytes) : aBuf;
  auto leafB = dev.buffer(seriesBytes), states = dev.buffer(seriesBytes);
  auto yBuf = dev.buffer(tokens * C * 2 * sizeof(float));

  ScanKernels scans(dev);
  const auto perStep = static_cast<long long>(s.entries());
  const DiagScanShape shape{{static_cast<int>(B), static_cast<int>(T), static_cast<int>(perStep)},
                            {static_cast<long long>(T) * perStep, perStep},
                            true};
  const size_t scratchBytes = scans.diagScanScratchBytes(shape, options);
  auto scratch = scratchBytes > 0 ? dev.buffer(scratchBytes) : nullptr;

  Batch batch = dev.batch();
  const LeafPush leafPush{static_cast<uint32_t>(entries), static_cast<uint32_t>(C),
                          static_cast<uint32_t>(s.dh), expand ? 1u : 0u};
  const Kernel& leaves = shaderKernel(dev, "gateloop_leaves", 5, sizeof leafPush);
  // Unexpanded, the aFull binding is a itself and never written.
  batch.dispatch(leaves, {aBuf.get(), kBuf.get(), vBuf.get(), aFull.get(), leafB.get()}, &leafPush,
                 sizeof leafPush, cappedGroups(entries, leaves.workgroup().x));
  scans.recordDiagScan(batch, {aFull.get(), leafB.get(), h0Buf.get(), states.get(), scratch.get()},
                       shape, options);
  const ReadoutPush readPush{static_cast<uint32_t>(tokens * C), static_cast<uint32_t>(C),
                             static_cast<uint32_t>(s.dh)};
  const Kernel& readout = shaderKernel(dev, "gateloop_readout", 3, sizeof readPush);
  batch.dispatch(readout, {qBuf.get(), states.get(), yBuf.get()}, &readPush, sizeof readPush,
                 cappedGroups(tokens * C, readout.workgroup().x));
  dev.run(batch);

  GateLoopPass out;
  out.y = dev.download<float>(*yBuf, 2 * tokens * C);
  if (keepStates) out.states = dev.download<float>(*states, 2 * entries);
  return out;
}

// `count` complex numbers from interleaved floats starting at complex index `first`.
std::vector<Complex> complexes(const std::vector<float>& from, size_t first, size_t count) {
  std::vector<Complex> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = {from[2 * (first + i)], from[2 * (first + i) + 1]};
  return out;
}

// The model's forward pass over sequences of one length, one operator call per layer;
// with `trace` (one sequence), that sequence's arrays.
std::vector<Sequence> forward(Device& dev, const GateLoopModel& model,
                              std::span<const Sequence> seqs, seed_models::Trace* trace,
                              const ScanOptions& options) {
  std::vector<Sequence> xs = embedOneLength(model, seqs, kGateLoopOnVulkan);
  for (int l = 0; l < model.settings().layers; ++l) {
    // The host's float64 layers, a sequence per core (they were most of an eval's time).
    std::vector<GateLoopInputs> ins(xs.size());
    std::vector<double> gammaPre, thetaPre;  // the traced sequence's (a trace has one)
    parallelFor(xs.size(), [&](size_t b) {
      const bool traced = trace != nullptr && b == 0;
      ins[b] =
          model.layerInputs(l, xs[b], traced ? &gammaPre : nullptr, traced ? &thetaPre : nullptr);
    });
    const std::vector<GateLoopDeviceResult> ys =
        runGateLoopOperatorOnDevice(dev, ins, trace != nullptr, options);
    parallelFor(xs.size(), [&](size_t b) { xs[b] = model.layerOutput(l, xs[b], ys[b].y); });
    if (trace)
      model.addLayerTrace(*trace, l, ins[0], gammaPre, thetaPre, ys[0].y, ys[0].states, xs[0]);
  }
  return headWithTrace(model, xs, trace);
}

}  // namespace

std::vector<GateLoopDeviceResult> runGateLoopOperatorOnDevice(
    Device& dev, const std::vector<GateLoopInputs>& inputs, bool keepStates,
    const ScanOptions& options) {
  if (inputs.empty()) return {};
  const OperatorShape s = shapeOf(inputs[0]);
  for (size_t i = 0; i < inputs.size(); ++i) {
    try {
      seed_models::checkGateLoopInputs(inputs[i]);
    } catch (const Error& e) {
      throw numbered("input", i, e.what());
    }
    const OperatorShape si = shapeOf(inputs[i]);
    if (si.heads != s.heads || si.dh != s.dh || si.steps != s.steps)
      throw numbered("input", i,
                     "heads = " + std::to_string(si.heads) + ", d_h = " + std::to_string(si.dh) +
                         ", steps = " + std::to_string(si.steps) + ", input 0 has " +
                         std::to_string(s.heads) + ", " + std::to_string(s.dh) + ", " +
                         std::to_string(s.steps) + " (one call needs one shape)");
  }
  std::vector<GateLoopDeviceResult> out(inputs.size());
  if (s.steps == 0) return out;
  const size_t per = inputsPerPass(dev.info(), s);
  const size_t yCount = s.steps * s.width(), stateCount = s.steps * s.entries();
  for (size_t first = 0; first < inputs.size(); first += per) {
    const size_t n = std::min(per, inputs.size() - first);
    const GateLoopPass pass = runPass(dev, {inputs.data() + first, n}, s, keepStates, options);
    for (size_t b = 0; b < n; ++b) {
      out[first + b].y = complexes(pass.y, b * yCount, yCount);
      if (keepStates) out[first + b].states = complexes(pass.states, b * stateCount, stateCount);
    }
  }
  return out;
}

Sequence runGateLoopOnDevice(Device& dev, const GateLoopModel& model, const Sequence& input,
                             seed_models::Trace* trace, const ScanOptions& options) {
  return forward(dev, model, {&input, 1}, trace, options)[0];
}

std::vector<Sequence> runGateLoopOnDevice(Device& dev, const GateLoopModel& model,
                                          const std::vector<Sequence>& batch,
                                          const ScanOptions& options) {
  if (batch.empty()) return {};
  return forward(dev, model, batch, nullptr, options);
}

}  // namespace lsrl::gpu
