#include "core/gpu/lattice_device.h"

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

using seed_models::LatticeConfig;
using seed_models::LatticeMode;
using seed_models::LatticeModel;
using seed_models::LatticeOptions;
using seed_models::LatticeSlots;
using seed_models::LatticeStepOut;
using seed_models::LatticeToken;
using seed_models::Sequence;
using seed_models::Vector;

constexpr const char* kLatticeOnVulkan = "lattice on Vulkan";

// The shader's push constants (shaders/lattice_step.comp).
struct LatticePush {
  uint32_t batch, steps, heads, mode, variant, closedForm, chunk, chunkNosr, trace;
  float eps, lambda;
  uint32_t t0, count, firstItem, items;  // this dispatch's steps and (sequence, head) items
};

// One head's sizes and the shader's per-step diagnostics row:
// [incoming (d), error (d), error (m), α (m), β (m), ‖s̃‖ (m), guarded (m)].
struct HeadShape {
  size_t m, d;
  size_t slots() const { return m * d; }
  size_t token() const {
    return static_cast<size_t>(seed_models::latticeDirectWidth(int(m), int(d)));
  }
  size_t diag() const { return 2 * d + 5 * m; }
  size_t errorM() const { return 2 * d; }
  size_t alpha() const { return 2 * d + m; }
  size_t beta() const { return 2 * d + 2 * m; }
  size_t preNorm() const { return 2 * d + 3 * m; }
  size_t guarded() const { return 2 * d + 4 * m; }
};

HeadShape headShape(const LatticeConfig& c) {
  return {static_cast<size_t>(c.m), static_cast<size_t>(c.d)};
}

// What one dispatch over B sequences of T tokens returns (slots and diag with a trace).
struct DevicePass {
  std::vector<float> y;      // [b][t][H·d]
  std::vector<float> slots;  // [b][h][t][m][d]
  std::vector<float> diag;   // [b][h][t][HeadShape::diag()]
};

// Each head's tokens of one layer [k, v, q, γ, μ] (as the model's direct input), from
// tokens[b][h][t], as [b][t][h][token].
using HeadsTokens = std::vector<std::vector<LatticeToken>>;  // [head][t]
std::vector<float> packTokens(const LatticeConfig& c, std::span<const HeadsTokens> tokens,
                              size_t T) {
  const HeadShape s = headShape(c);
  const size_t H = static_cast<size_t>(c.heads), W = s.token();
  std::vector<float> out(tokens.size() * T * H * W);
  for (size_t b = 0; b < tokens.size(); ++b)
    for (size_t h = 0; h < H; ++h)
      for (size_t t = 0; t < T; ++t) {
        const Vector row = seed_models::packLatticeToken(tokens[b][h][t]);
        std::copy(row.begin(), row.end(), out.begin() + ((b * T + t) * H + h) * W);
      }
  return out;
}

// The push constants of a pass over B sequences of T tokens (the dispatch's range unset).
LatticePush latticePush(const LatticeConfig& c, size_t B, size_t T, bool trace) {
  const LatticeOptions& o = c.options;
  return {uint32_t(B), uint32_t(T), uint32_t(c.heads),
          // The chunk's steps are raw OSR steps from S_{t0} (latticeRecurrence).
          uint32_t(c.chunk > 1 ? LatticeMode::Osr : o.mode), uint32_t(o.variant),
          o.beta == seed_models::LatticeBeta::ClosedForm ? 1u : 0u, uint32_t(c.chunk),
          o.mode == LatticeMode::Nosr ? 1u : 0u, trace ? 1u : 0u, float(o.eps), float(o.lambda), 0,
          0, 0, 0};
}

// The workgroup size: invocations stride over slots and dimensions, so a power of two
// covering the wider (at most the table's size, core/gpu/workgroups.h, and the device's).
uint32_t localSize(const HeadShape& s, const DeviceInfo& info) {
  const uint32_t most = shaderWorkgroup("lattice_step").x;
  uint32_t local = 1;
  while (local < std::max(s.m, s.d) && local < most) local *= 2;
  return std::min(local, std::max<uint32_t>(info.maxWorkgroupSize, 1));
}

// Floats of one (sequence, head)'s state carried between dispatches: S, and with chunk > 1
// also the frozen S_{t0} and the chunk's sum.
size_t carryFloats(const HeadShape& s, bool chunked) { return (chunked ? 3 : 1) * s.slots(); }

// Time steps per dispatch of lattice_step.comp. lavapipe stops a shader's loops after
// 65,535 iterations counted over an invocation's lifetime (every loop's iterations, inner
// ones included, add up across the steps), silently, so T runs as dispatches of at most
// this many steps. One invocation's iterations per step, with c = ⌈n / local⌉ the passes of
// a loop striding n items over `local` invocations (none assumed unrolled, so a bound):
//   the time loop 1; with chunk > 1 the copy to S_{t0}, c(md) (counted every step);
//   slot norms c(m)·(1 + d, + d more for ENC's e); h and e: c(d)·(1 + m, or 1 when the
//   orthogonal ENC / SIM forms skip Φk); output_normalised's ‖z‖ and e on one invocation
//   2d + c(d); the slots' updates c(m)·(1 + 2d, + d for NOSR's or L1's rescale, + 2d for
//   the chunk's sum and φ); y = S q c(d)·(1 + m); the trace's writes c(md) + c(d).
// stepsPerDispatch keeps a dispatch at a quarter of lavapipe's cap, which leaves room for
// the loops around the steps (the item loop and the state's load and store, 1 + 2·c(md)).
uint32_t stepsPerLatticeDispatch(const DeviceInfo& info, const HeadShape& s, uint32_t local,
                                 const LatticePush& push, bool chunked) {
  auto passes = [&](size_t n) { return uint64_t((n + local - 1) / local); };
  const auto mode = static_cast<LatticeMode>(push.mode);
  const bool orthogonal = seed_models::latticeIsOrthogonal(mode);
  const auto variant = static_cast<seed_models::LatticeVariant>(push.variant);
  const bool enc = orthogonal && variant == seed_models::LatticeVariant::Enc;
  const bool usesPhiK = !orthogonal || variant == seed_models::LatticeVariant::Dec;
  const uint64_t m = s.m, d = s.d, md = passes(s.slots());
  uint64_t perStep = 1 + (chunked ? md : 0);
  perStep += passes(s.m) * (1 + d + (enc ? d : 0));
  perStep += passes(s.d) * (1 + (usesPhiK ? m : 0));
  if (mode == LatticeMode::OutputNormalised) perStep += 2 * d + passes(s.d);
  const bool rescale = mode == LatticeMode::Nosr || mode == LatticeMode::L1;
  perStep += passes(s.m) * (1 + 2 * d + (chunked ? 2 * d : (rescale ? d : 0)));
  perStep += passes(s.d) * (1 + m);
  if (push.trace != 0) perStep += md + passes(s.d);
  return stepsPerDispatch(info, perStep);
}

// Shared floats the shader declares for one head: the state, frozen and accum (one float
// each unless chunked), and the per-step vectors.
size_t sharedFloats(const HeadShape& s, bool chunked) {
  return s.slots() + 2 * (chunked ? s.slots() : 1) + 2 * s.m + 3 * s.d + 2;
}

DevicePass runPass(Device& dev, const LatticeModel& model, int layer, std::span<const float> tokens,
                   size_t B, size_t T, bool trace) {
  const LatticeConfig& c = model.settings();
  const HeadShape s = headShape(c);
  const size_t H = static_cast<size_t>(c.heads);
  const bool chunked = c.chunk > 1;
  const DeviceInfo& info = dev.info();
  const size_t sharedBytes = sharedFloats(s, chunked) * sizeof(float);
  if (sharedBytes > info.maxSharedMemory)
    throw Error(
        std::string(kLatticeOnVulkan) + ": one head's slots (m·d = " + std::to_string(s.slots()) +
        (chunked ? ", three copies with chunk > 1" : "") + ") need " + std::to_string(sharedBytes) +
        " bytes of shared memory, the device has " + std::to_string(info.maxSharedMemory));
  const uint32_t local = localSize(s, info);
  const Kernel& k = shaderKernel(
      dev, "lattice_step", {local}, 6, sizeof(LatticePush),
      {uint32_t(s.m), uint32_t(s.d), chunked ? 1u : 0u, chunked ? uint32_t(s.slots()) : 1u});

  std::vector<float> s0;
  for (int h = 0; h < c.heads; ++h) {
    const LatticeSlots S = model.initialSlots(h, layer);
    s0.insert(s0.end(), S.data.begin(), S.data.end());
  }
  DevicePass out;
  const size_t yCount = B * T * H * s.d;
  const size_t slotCount = trace ? B * H * T * s.slots() : 0;
  const size_t diagCount = trace ? B * H * T * s.diag() : 0;
  auto tokBuf = uploadFloats(dev, tokens);
  auto s0Buf = uploadFloats(dev, s0);
  auto yBuf = dev.buffer(std::max<size_t>(yCount, 1) * sizeof(float));
  auto slotBuf = dev.buffer(std::max<size_t>(slotCount, 1) * sizeof(float));
  auto diagBuf = dev.buffer(std::max<size_t>(diagCount, 1) * sizeof(float));
  const size_t items = B * H;
  auto carryBuf = dev.buffer(std::max<size_t>(items * carryFloats(s, chunked), 1) * sizeof(float));

  LatticePush push = latticePush(c, B, T, trace);
  // T as dispatches of at most `stepsPer` steps (each continuing from the state the last left
  // in carryBuf), and each of those over at most a grid's worth of items, one per workgroup;
  // one submission, with a barrier between dispatches.
  const uint32_t stepsPer = stepsPerLatticeDispatch(dev.info(), s, local, push, chunked);
  Batch batch = dev.batch();
  for (size_t t0 = 0; t0 < T; t0 += stepsPer)
    for (size_t first = 0; first < items; first += kMaxGroupsPerDimension) {
      push.t0 = uint32_t(t0);
      push.count = uint32_t(std::min<size_t>(stepsPer, T - t0));
      push.firstItem = uint32_t(first);
      push.items = uint32_t(std::min<size_t>(kMaxGroupsPerDimension, items - first));
      batch.dispatch(
          k, {tokBuf.get(), s0Buf.get(), yBuf.get(), slotBuf.get(), diagBuf.get(), carryBuf.get()},
          &push, sizeof push, push.items);
    }
  if (batch.size() > 0) dev.run(batch);
  out.y = dev.download<float>(*yBuf, yCount);
  if (trace) {
    out.slots = dev.download<float>(*slotBuf, slotCount);
    out.diag = dev.download<float>(*diagBuf, diagCount);
  }
  return out;
}

// Sequences per dispatch so that every buffer stays within the device's range.
size_t sequencesPerPass(const DeviceInfo& info, const LatticeConfig& c, size_t T, bool trace) {
  const HeadShape s = headShape(c);
  const size_t H = static_cast<size_t>(c.heads);
  size_t widest = T * H * std::max(s.token(), s.d);
  if (trace) widest = std::max(widest, T * H * std::max(s.slots(), s.diag()));
  widest = std::max(widest, H * carryFloats(s, c.chunk > 1));
  const size_t bytes = std::max<size_t>(widest, 1) * sizeof(float);
  if (bytes > info.maxStorageBufferRange)
    throw Error(std::string(kLatticeOnVulkan) + ": one sequence of " + std::to_string(T) +
                " tokens needs " + std::to_string(bytes) +
                " bytes in one buffer, the device's range is " +
                std::to_string(info.maxStorageBufferRange));
  return info.maxStorageBufferRange / bytes;
}

// Rows [t][H·d] of sequence b of a pass's y.
Sequence mixerRows(const std::vector<float>& y, size_t b, size_t T, size_t width) {
  Sequence rows(T, Vector(width));
  for (size_t t = 0; t < T; ++t)
    for (size_t r = 0; r < width; ++r) rows[t][r] = y[(b * T + t) * width + r];
  return rows;
}

// Head `head`'s steps and S_1..S_T from a pass whose sequence 0 is traced: the device's
// arrays put into the reference step's outputs, the others derived by latticeStep from the
// device's slots.
void deviceHeadSteps(const LatticeModel& model, int layer, int head,
                     const std::vector<LatticeToken>& tokens, const DevicePass& pass,
                     std::vector<LatticeStepOut>& steps, std::vector<LatticeSlots>& slots) {
  const LatticeConfig& c = model.settings();
  const HeadShape s = headShape(c);
  const LatticeOptions& o = c.options;
  LatticeOptions raw = o;  // inside a chunk: raw OSR steps from the frozen S_{t0}
  if (c.chunk > 1) raw.mode = LatticeMode::Osr;
  const bool enc =
      seed_models::latticeIsOrthogonal(o.mode) && o.variant == seed_models::LatticeVariant::Enc;
  const size_t T = tokens.size(), H = static_cast<size_t>(c.heads);
  auto values = [](const std::vector<float>& from, size_t at, size_t n) {
    return Vector(from.begin() + static_cast<std::ptrdiff_t>(at),
                  from.begin() + static_cast<std::ptrdiff_t>(at + n));
  };
  const LatticeSlots initial = model.initialSlots(head, layer);
  for (size_t t = 0; t < T; ++t) {
    const size_t step = static_cast<size_t>(head) * T + t;
    const size_t t0 = t - t % static_cast<size_t>(c.chunk);
    LatticeSlots from = t0 == 0 ? initial : slots[t0 - 1];
    LatticeStepOut out = seed_models::latticeStep(from, tokens[t], raw);
    slots.push_back(LatticeSlots{c.d, c.m, values(pass.slots, step * s.slots(), s.slots())});
    const size_t at = step * s.diag();
    out.y = values(pass.y, t * H * s.d + static_cast<size_t>(head) * s.d, s.d);
    out.incoming = values(pass.diag, at, s.d);
    if (!out.error.empty())
      out.error = enc ? values(pass.diag, at + s.errorM(), s.m) : values(pass.diag, at + s.d, s.d);
    out.writeStrength = values(pass.diag, at + s.alpha(), s.m);
    out.beta = values(pass.diag, at + s.beta(), s.m);
    out.preNorm = values(pass.diag, at + s.preNorm(), s.m);
    out.guarded = values(pass.diag, at + s.guarded(), s.m);
    out.lossAfter = seed_models::latticeLoss(slots.back(), tokens[t], o);
    steps.push_back(std::move(out));
  }
}

// The model's forward pass over sequences of one length (LatticeModel's steps, with each
// layer's recurrence on the device); with `trace` (one sequence), that sequence's arrays.
std::vector<Sequence> forward(Device& dev, const LatticeModel& model,
                              std::span<const Sequence> seqs, seed_models::Trace* trace) {
  const LatticeConfig& c = model.settings();
  const size_t T = seqs[0].size(), H = static_cast<size_t>(c.heads), width = H * c.d;
  std::vector<Sequence> xs = embedOneLength(model, seqs, kLatticeOnVulkan);
  const size_t per = sequencesPerPass(dev.info(), c, T, trace != nullptr);
  for (int l = 0; l < c.layerCount(); ++l) {
    std::vector<Sequence> mixed(xs.size());
    for (size_t first = 0; first < xs.size(); first += per) {
      const size_t n = std::min(per, xs.size() - first);
      // The host's float64 projections, a sequence per core.
      std::vector<HeadsTokens> tokens(n);
      parallelFor(n, [&](size_t b) { tokens[b] = model.layerInputs(l, xs[first + b]); });
      const DevicePass pass =
          runPass(dev, model, l, packTokens(c, tokens, T), n, T, trace != nullptr);
      for (size_t b = 0; b < n; ++b) mixed[first + b] = mixerRows(pass.y, b, T, width);
      if (!trace || first > 0) continue;
      std::vector<std::vector<LatticeStepOut>> steps(H);
      std::vector<std::vector<LatticeSlots>> slots(H);
      for (size_t h = 0; h < H; ++h)
        deviceHeadSteps(model, l, static_cast<int>(h), tokens[0][h], pass, steps[h], slots[h]);
      model.addLayerTrace(*trace, l, tokens[0], steps, slots, mixed[0]);
    }
    parallelFor(xs.size(), [&](size_t b) { xs[b] = model.layerOutput(l, xs[b], mixed[b]); });
  }
  return headWithTrace(model, xs, trace);
}

}  // namespace

uint32_t latticeStepsPerDispatch(const DeviceInfo& info, const LatticeConfig& c, bool trace) {
  const HeadShape s = headShape(c);
  return stepsPerLatticeDispatch(info, s, localSize(s, info), latticePush(c, 1, 1, trace),
                                 c.chunk > 1);
}

Sequence runLatticeOnDevice(Device& dev, const LatticeModel& model, const Sequence& input,
                            seed_models::Trace* trace) {
  return forward(dev, model, {&input, 1}, trace)[0];
}

std::vector<Sequence> runLatticeOnDevice(Device& dev, const LatticeModel& model,
                                         const std::vector<Sequence>& batch) {
  if (batch.empty()) return {};
  const size_t T = batch[0].size();
  for (size_t b = 0; b < batch.size(); ++b)
    if (batch[b].size() != T)
      throw Error(std::string(kLatticeOnVulkan) + ": sequence " + std::to_string(b) + " has " +
                  std::to_string(batch[b].size()) + " tokens, sequence 0 has " + std::to_string(T) +
                  " (a batch needs one length)");
  if (T == 0) return std::vector<Sequence>(batch.size());
  return forward(dev, model, batch, nullptr);
}

}  // namespace lsrl::gpu
