#include "core/gpu/looped_device.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "core/gpu/kernel_support.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

using seed_models::LoopedModel;
using seed_models::Sequence;

constexpr const char* kLoopedOnVulkan = "looped on Vulkan";

// The shaders' push constants (and their flag bits).
struct NormPush {
  uint32_t rows, d, srcOffset, alphaOffset, flags;
  float eps;
};
constexpr uint32_t kInject = 1, kRms = 2, kAlpha = 4, kWriteXin = 8;
struct AttentionPush {
  uint32_t items, N, heads, s, probOffset, flags;
  float lambda, scale;
};
constexpr uint32_t kCausal = 1, kHardmax = 2;
struct ResidualPush {
  uint32_t count, d, baseOffset, outOffset, gammaOffset, branchOffset, writeBranch;
};
struct ActivationPush {
  uint32_t count, relu;
};

// Offsets of the four vectors in one loop's row of the modulation table [t][4][d].
enum ModChunk : uint32_t { kGamma1 = 0, kGamma2 = 1, kAlpha1 = 2, kAlpha2 = 3 };

std::vector<float> floats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

DeviceDense upload(Device& dev, const seed_models::Affine& a) {
  return uploadDense(dev, float_batch::DenseMatrix{a.out, a.in, floats(a.w)}, floats(a.b));
}

// What is uploaded once per call: the block's linear maps and the modulation table.
struct DeviceBlock {
  DeviceDense q, k, v, o, fc1, fc2;
  std::shared_ptr<Buffer> mods;  // [t][γ1 γ2 α1 α2][d], fp32
};

DeviceBlock uploadBlock(Device& dev, const LoopedModel& model, int loops) {
  const seed_models::LoopedBlockWeights& w = model.blockWeights();
  std::vector<float> table;
  for (int t = 0; t < loops; ++t) {
    const seed_models::Modulation m = model.modulation(t);
    for (const seed_models::Vector* v : {&m.gamma1, &m.gamma2, &m.alpha1, &m.alpha2})
      table.insert(table.end(), v->begin(), v->end());
  }
  return {upload(dev, w.q),   upload(dev, w.k),   upload(dev, w.v),        upload(dev, w.o),
          upload(dev, w.fc1), upload(dev, w.fc2), uploadFloats(dev, table)};
}

// The sizes of one pass.
struct Shape {
  size_t B = 0, N = 0, d = 0, heads = 0, s = 0, dFf = 0, loops = 0;
  bool record = false;  // keep every loop (the trace) rather than the last state
  size_t rows() const { return B * N; }
  size_t width() const { return heads * s; }
  size_t slices() const { return record ? loops + 1 : 2; }  // hidden: all, or ping-pong
  size_t kept() const { return record ? loops : 1; }        // mid, attention
  size_t probs() const { return B * heads * N * N; }        // one loop's attention maps
};

Shape shapeOf(const LoopedModel& model, size_t B, size_t N, bool record) {
  const seed_models::LoopedConfig& c = model.settings();
  return {B,
          N,
          static_cast<size_t>(c.d),
          static_cast<size_t>(c.heads),
          static_cast<size_t>(c.headDim),
          static_cast<size_t>(c.dFf),
          static_cast<size_t>(c.loops),
          record};
}

// Sequences per pass so that the largest buffer stays within the device's range.
size_t sequencesPerPass(const DeviceInfo& info, const Shape& one) {
  const size_t floatsPerSequence =
      std::max({one.slices() * one.N * one.d, one.kept() * one.N * one.d, one.kept() * one.probs(),
                one.N * one.dFf, one.N * one.width(), size_t{1}});
  const size_t bytes = floatsPerSequence * sizeof(float);
  if (bytes > info.maxStorageBufferRange)
    throw Error(std::string(kLoopedOnVulkan) + ": one sequence of " + std::to_string(one.N) +
                " tokens" +
                (one.record ? " traced over " + std::to_string(one.loops) + " loops" : "") +
                " needs " + std::to_string(bytes) + " bytes in one buffer, the device's range is " +
                std::to_string(info.maxStorageBufferRange));
  return std::max<size_t>(info.maxStorageBufferRange / bytes, 1);
}

// What a pass downloads: hidden [slice][b][n][d] (every slice with `record`, else only
// the last state), and with `record` mid, the branches [t][b][n][d], attention
// [t][b][h][n][j].
struct LoopedPass {
  std::vector<float> hidden, mid, attnBranch, mlpBranch, attention;
};

// The pass's buffers (device-local scratch, reused by every loop).
struct Buffers {
  std::shared_ptr<Buffer> hidden, e, xin, z, q, k, v, heads, ao, mid, hid, f, attention, attnBranch,
      mlpBranch;
};

Buffers allocate(Device& dev, const Shape& s, const std::vector<float>& x0,
                 const std::vector<float>& e, bool inject) {
  auto floatsBuffer = [&](size_t count) {
    return dev.buffer(std::max<size_t>(count, 1) * sizeof(float));
  };
  const size_t rd = s.rows() * s.d;
  Buffers b;
  b.hidden = floatsBuffer(s.slices() * rd);
  dev.upload(*b.hidden, x0.data(), x0.size() * sizeof(float));
  b.e = inject ? uploadFloats(dev, e) : floatsBuffer(1);
  b.xin = floatsBuffer(rd);
  b.z = floatsBuffer(rd);
  for (auto* buf : {&b.q, &b.k, &b.v, &b.heads}) *buf = floatsBuffer(s.rows() * s.width());
  b.ao = floatsBuffer(rd);
  b.mid = floatsBuffer(s.kept() * rd);
  b.hid = floatsBuffer(s.rows() * s.dFf);
  b.f = floatsBuffer(rd);
  b.attention = floatsBuffer(s.kept() * s.probs());
  b.attnBranch = floatsBuffer(s.record ? s.loops * rd : 1);
  b.mlpBranch = floatsBuffer(s.record ? s.loops * rd : 1);
  return b;
}

uint32_t u32(size_t n) { return static_cast<uint32_t>(n); }

// Records loop t: X^(t) in hidden's slice `from` → X^(t+1) in slice `to`.
void recordLoop(Device& dev, Batch& batch, const LoopedModel& model, const DeviceBlock& w,
                const Buffers& b, const Shape& s, size_t t, size_t from, size_t to) {
  const seed_models::LoopedConfig& c = model.settings();
  const size_t rd = s.rows() * s.d, modRow = t * 4 * s.d;
  const size_t midOffset = s.record ? t * rd : 0;
  // Norm and attention run one workgroup per row, whatever its size.
  const Kernel& norm = shaderKernel(dev, "looped_norm", 5, sizeof(NormPush));
  const Kernel& attention = shaderKernel(dev, "looped_attention", 5, sizeof(AttentionPush));
  const Kernel& residual = shaderKernel(dev, "looped_residual", 5, sizeof(ResidualPush));
  const Kernel& activation = shaderKernel(dev, "looped_activation", 1, sizeof(ActivationPush));
  const uint32_t rms = c.norm == seed_models::LoopedNorm::RMS ? kRms : 0;
  const auto eps = static_cast<float>(c.rmsEps);
  auto recordNorm = [&](const Buffer& src, size_t srcOffset, ModChunk alpha, uint32_t flags) {
    const NormPush push{u32(s.rows()), u32(s.d), u32(srcOffset), u32(modRow + alpha * s.d),
                        flags,         eps};
    batch.dispatch(norm, {&src, b.e.get(), w.mods.get(), b.xin.get(), b.z.get()}, &push,
                   sizeof push, cappedGroups(s.rows(), 1));
  };
  auto recordResidual = [&](const Buffer& base, size_t baseOffset, const Buffer& branch,
                            ModChunk gamma, Buffer& out, size_t outOffset,
                            const Buffer& branchOut) {
    const ResidualPush push{
        u32(rd),     u32(s.d),          u32(baseOffset), u32(outOffset), u32(modRow + gamma * s.d),
        u32(t * rd), s.record ? 1u : 0u};
    batch.dispatch(residual, {&base, &branch, w.mods.get(), &out, &branchOut}, &push, sizeof push,
                   cappedGroups(rd, residual.workgroup().x));
  };

  // X' = X + γ_1 ⊙ MHA(RMSN(X, α_1)), X = X^(t) (+ E): xin.
  recordNorm(*b.hidden, from * rd, kAlpha1, rms | kAlpha | kWriteXin | (c.inject ? kInject : 0));
  recordDenseMatvec(dev, batch, w.q, *b.z, *b.q, s.rows());
  recordDenseMatvec(dev, batch, w.k, *b.z, *b.k, s.rows());
  recordDenseMatvec(dev, batch, w.v, c.baselineCompat ? *b.xin : *b.z, *b.v, s.rows());
  const uint32_t hardmax = c.scoring == seed_models::LoopedScoring::Hardmax ? kHardmax : 0;
  const AttentionPush attPush{
      u32(s.B * s.heads * s.N),
      u32(s.N),
      u32(s.heads),
      u32(s.s),
      u32(s.record ? t * s.probs() : 0),
      (c.causal ? kCausal : 0) | hardmax,
      static_cast<float>(c.softmaxLambda),
      c.scaleRsqrtS ? static_cast<float>(1 / std::sqrt(static_cast<double>(s.s))) : 1.0f};
  batch.dispatch(attention, {b.q.get(), b.k.get(), b.v.get(), b.attention.get(), b.heads.get()},
                 &attPush, sizeof attPush, cappedGroups(s.B * s.heads * s.N, 1));
  recordDenseMatvec(dev, batch, w.o, *b.heads, *b.ao, s.rows());
  recordResidual(*b.xin, 0, *b.ao, kGamma1, *b.mid, midOffset, *b.attnBranch);

  // X'' = X' + γ_2 ⊙ MLP(RMSN(X', α_2)); baseline_compat: MLP(X') (the norm kernel copies).
  recordNorm(*b.mid, midOffset, kAlpha2, c.baselineCompat ? 0 : rms | kAlpha);
  recordDenseMatvec(dev, batch, w.fc1, *b.z, *b.hid, s.rows());
  const ActivationPush actPush{u32(s.rows() * s.dFf),
                               c.activation == seed_models::LoopedActivation::ReLU ? 1u : 0u};
  batch.dispatch(activation, {b.hid.get()}, &actPush, sizeof actPush,
                 cappedGroups(s.rows() * s.dFf, activation.workgroup().x));
  recordDenseMatvec(dev, batch, w.fc2, *b.hid, *b.f, s.rows());
  recordResidual(*b.mid, midOffset, *b.f, kGamma2, *b.hidden, to * rd, *b.mlpBranch);
}

// The loops over sequences of one length (s.B of them, s.N tokens each).
LoopedPass runPass(Device& dev, const LoopedModel& model, const DeviceBlock& w,
                   std::span<const Sequence> seqs, const Shape& s) {
  const seed_models::LoopedConfig& c = model.settings();
  const size_t rd = s.rows() * s.d;
  std::vector<float> e;
  e.reserve(rd);
  for (const Sequence& seq : seqs)
    for (const seed_models::Vector& row : seq) e.insert(e.end(), row.begin(), row.end());
  const std::vector<float> x0 = c.x0Zero ? std::vector<float>(rd, 0.0f) : e;
  LoopedPass out;
  if (s.loops == 0 || rd == 0) {  // nothing to run: X^(0) is the answer
    out.hidden = x0;
    return out;
  }
  const Buffers b = allocate(dev, s, x0, e, c.inject);
  Batch batch = dev.batch();
  for (size_t t = 0; t < s.loops; ++t)
    recordLoop(dev, batch, model, w, b, s, t, s.record ? t : t % 2, s.record ? t + 1 : (t + 1) % 2);
  dev.run(batch);
  if (s.record) {
    out.hidden = dev.download<float>(*b.hidden, s.slices() * rd);
    out.mid = dev.download<float>(*b.mid, s.loops * rd);
    out.attnBranch = dev.download<float>(*b.attnBranch, s.loops * rd);
    out.mlpBranch = dev.download<float>(*b.mlpBranch, s.loops * rd);
    out.attention = dev.download<float>(*b.attention, s.loops * s.probs());
  } else {
    out.hidden.resize(rd);
    dev.download(*b.hidden, out.hidden.data(), rd * sizeof(float),
                 (s.loops % 2) * rd * sizeof(float));
  }
  return out;
}

// Rows [first, first + count) of width `width` from fp32 values, as float64 rows.
Sequence rowsOf(const std::vector<float>& v, size_t first, size_t count, size_t width) {
  Sequence out(count);
  for (size_t n = 0; n < count; ++n) {
    const auto at = v.begin() + static_cast<std::ptrdiff_t>((first + n) * width);
    out[n].assign(at, at + static_cast<std::ptrdiff_t>(width));
  }
  return out;
}

std::vector<double> doubles(const std::vector<float>& v) { return {v.begin(), v.end()}; }

void append(std::vector<double>& out, const Sequence& rows) {
  for (const seed_models::Vector& r : rows) out.insert(out.end(), r.begin(), r.end());
}

// The CPU reference's trace from one sequence's pass (see the header for who computes what).
void addTrace(seed_models::Trace& trace, const LoopedModel& model, const LoopedPass& pass,
              const Shape& s) {
  const seed_models::LoopedConfig& c = model.settings();
  const bool tmlt = c.timestep == seed_models::LoopedTimestep::Tmlt;
  const auto r = static_cast<int64_t>(s.loops), N = static_cast<int64_t>(s.N),
             d = static_cast<int64_t>(s.d);
  std::vector<double> alpha, gamma, pe, te, steps, readouts;
  Sequence x = rowsOf(pass.hidden, 0, s.N, s.d);
  Sequence out = model.readout(x);
  for (size_t t = 0; t < s.loops; ++t) {
    seed_models::Modulation mod = seed_models::Modulation::identity(c.d);
    if (tmlt) {
      const seed_models::TimestepCode code = model.timestepCode(static_cast<int>(t));
      pe.insert(pe.end(), code.pe.begin(), code.pe.end());
      te.insert(te.end(), code.te.begin(), code.te.end());
      mod = code.mod;
    }
    append(alpha, {mod.alpha1, mod.alpha2});
    append(gamma, {mod.gamma1, mod.gamma2});
    const Sequence next = rowsOf(pass.hidden, (t + 1) * s.N, s.N, s.d);
    double ss = 0;
    for (size_t n = 0; n < s.N; ++n)
      for (size_t i = 0; i < s.d; ++i) ss += (next[n][i] - x[n][i]) * (next[n][i] - x[n][i]);
    steps.push_back(std::sqrt(ss));
    x = next;
    out = model.readout(x);
    append(readouts, out);
  }
  trace.add("hidden", {r + 1, N, d}, doubles(pass.hidden));
  trace.add("mid", {r, N, d}, doubles(pass.mid));
  trace.add("attn_branch", {r, N, d}, doubles(pass.attnBranch));
  trace.add("mlp_branch", {r, N, d}, doubles(pass.mlpBranch));
  trace.add("attention", {r, c.heads, N, N}, doubles(pass.attention));
  trace.add("alpha", {r, 2, d}, std::move(alpha));
  trace.add("gamma", {r, 2, d}, std::move(gamma));
  if (tmlt) {
    trace.add("pe", {r, c.dFreq}, std::move(pe));
    trace.add("te", {r, d}, std::move(te));
  }
  trace.add("step_norm", {r}, std::move(steps));
  trace.add("readout", {r, N, c.dOut}, std::move(readouts));
  std::vector<double> flat;
  append(flat, out);
  trace.add("output", {N, c.dOut}, std::move(flat));
}

Error numbered(size_t i, const std::string& what) {
  return Error(std::string(kLoopedOnVulkan) + ": sequence " + std::to_string(i) + ": " + what);
}

}  // namespace

Sequence runLoopedOnDevice(Device& dev, const LoopedModel& model, const Sequence& input,
                           seed_models::Trace* trace) {
  try {
    seed_models::requireWidth("looped", input, model.settings().d);
  } catch (const Error& e) {
    throw Error(std::string(kLoopedOnVulkan) + ": " + e.what());
  }
  const Shape s = shapeOf(model, 1, input.size(), trace != nullptr);
  sequencesPerPass(dev.info(), s);  // refuses a sequence too large for one buffer
  const DeviceBlock w = uploadBlock(dev, model, model.settings().loops);
  const LoopedPass pass = runPass(dev, model, w, {&input, 1}, s);
  if (trace) addTrace(*trace, model, pass, s);
  const size_t last = trace ? s.loops * s.N : 0;  // the last slice's first row
  return model.readout(rowsOf(pass.hidden, last, s.N, s.d));
}

std::vector<Sequence> runLoopedOnDevice(Device& dev, const LoopedModel& model,
                                        const std::vector<Sequence>& batch) {
  if (batch.empty()) return {};
  const size_t N = batch[0].size();
  for (size_t b = 0; b < batch.size(); ++b) {
    if (batch[b].size() != N)
      throw numbered(b, std::to_string(batch[b].size()) + " tokens, sequence 0 has " +
                            std::to_string(N) + " (a batch needs one length)");
    try {
      seed_models::requireWidth("looped", batch[b], model.settings().d);
    } catch (const Error& e) {
      throw numbered(b, e.what());
    }
  }
  const size_t per = sequencesPerPass(dev.info(), shapeOf(model, 1, N, false));
  const DeviceBlock w = uploadBlock(dev, model, model.settings().loops);
  std::vector<Sequence> outs;
  for (size_t first = 0; first < batch.size(); first += per) {
    const size_t count = std::min(per, batch.size() - first);
    const Shape s = shapeOf(model, count, N, false);
    const LoopedPass pass = runPass(dev, model, w, {batch.data() + first, count}, s);
    for (size_t b = 0; b < count; ++b)
      outs.push_back(model.readout(rowsOf(pass.hidden, b * N, N, s.d)));
  }
  return outs;
}

}  // namespace lsrl::gpu
