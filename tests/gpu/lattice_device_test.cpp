// Lattice on Vulkan (core/gpu/lattice_device.h) against its float64 CPU reference
// (core/seed_models/lattice.h): the test vectors of docs/spec/seed-models.md §6.1 (L1–L6) on the
// device, every trace array on the default task and on random models of several sizes (every mode,
// variant, β form, chunked, projected and direct input, the output gate, §1.8's conv and l2 keys,
// §1.8a's token model of two layers), sequences long enough to span several dispatches, the
// batched entry point, and the errors.
#include "core/gpu/lattice_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/expect_error.h"
#include "common/vector_compare.h"
#include "gpu/trace_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using seed_models::LatticeBeta;
using seed_models::LatticeConfig;
using seed_models::LatticeMode;
using seed_models::LatticeModel;
using seed_models::LatticeToken;
using seed_models::LatticeVariant;
using seed_models::Sequence;
using seed_models::Trace;
using seed_models::Vector;
using testing_common::expectError;
using testing_common::expectNear;
using testing_vulkan::expectTracesAgree;
using testing_vulkan::kParity;
using testing_vulkan::seededRandomRows;

// The spec's values are rounded to 6 decimals; fp32 adds a few 1e-7 on top.
constexpr double kLatticeSpec = 1.5e-6;

// Runs `model` on both sides with a trace and compares everything; returns the worst error.
double expectParityWithCpu(Device& dev, const LatticeModel& model, const Sequence& input,
                           const std::string& what, double tolerance = kParity) {
  Trace cpuTrace, gpuTrace;
  const Sequence cpu = model.run(input, &cpuTrace);
  const Sequence gpu = runLatticeOnDevice(dev, model, input, &gpuTrace);
  EXPECT_EQ(gpu.size(), cpu.size()) << what;
  std::string worstName;
  const double worst = expectTracesAgree(gpuTrace, cpuTrace, what, tolerance, &worstName);
  // The returned rows are the trace's "output".
  for (size_t t = 0; t < std::min(gpu.size(), cpu.size()); ++t)
    for (size_t j = 0; j < cpu[t].size(); ++j)
      EXPECT_NEAR(gpu[t][j], cpu[t][j], tolerance * (1 + std::fabs(cpu[t][j]))) << what;
  std::printf("  %-34s max |gpu - cpu| / (1 + |cpu|) = %.2e (%s)\n", what.c_str(), worst,
              worstName.c_str());
  return worst;
}

// §6.1's setup through the model's direct input: d = 3, m = 2, S_0 = [e1 e2].
LatticeModel specModel(LatticeMode mode, LatticeVariant variant, int d = 3, int m = 2) {
  LatticeConfig c;
  c.input = "direct";
  c.d = d;
  c.m = m;
  c.options.mode = mode;
  c.options.variant = variant;
  Tensor s0 = seed_models::filled("s0", {1, m, d}, 0.0);
  for (int i = 0; i < std::min(d, m); ++i) s0.data[static_cast<size_t>(i) * d + i] = 1;
  return LatticeModel(c, {s0});
}

Sequence specRows(double mu = 1) {
  return {seed_models::packLatticeToken({{1, 0}, {0, 0, 1}, {1, 1}, 1.0, mu}),
          seed_models::packLatticeToken({{0.5, 0.5}, {0, 1, 1}, {1, 0}, 1.0, mu}),
          seed_models::packLatticeToken({{-1, 2}, {1, 1, 0}, {0.5, -1}, 0.5, mu})};
}

// `name`'s row t (of `width` values) in `trace`.
Vector row(const Trace& trace, const std::string& name, size_t t, size_t width) {
  const Vector& d = trace.get(name).data;
  return Vector(d.begin() + static_cast<std::ptrdiff_t>(t * width),
                d.begin() + static_cast<std::ptrdiff_t>((t + 1) * width));
}

// Runs the spec's tokens on the device and checks S_t (both slots) and y_t where given.
struct Expected {
  Vector slots, y;
};
Trace checkSpecRun(Device& dev, const LatticeModel& model, const Sequence& rows,
                   const std::vector<Expected>& want, const std::string& what) {
  Trace trace;
  const Sequence y = runLatticeOnDevice(dev, model, rows, &trace);
  const size_t md = static_cast<size_t>(model.settings().m) * model.settings().d;
  for (size_t t = 0; t < want.size(); ++t) {
    const std::string at = what + " t=" + std::to_string(t + 1);
    if (!want[t].slots.empty())
      expectNear(row(trace, "slots", t, md), want[t].slots, kLatticeSpec, at);
    if (!want[t].y.empty()) expectNear(y[t], want[t].y, kLatticeSpec, at + " y");
  }
  return trace;
}

TEST(VulkanLattice, SpecVectorsL1ToL5) {
  LSRL_VULKAN_DEVICE(dev);
  // L1: DEC, NOSR, μ = 1, with the intermediates the device computes.
  Trace l1 = checkSpecRun(dev, specModel(LatticeMode::Nosr, LatticeVariant::Dec), specRows(),
                          {{{0.707107, 0, 0.707107, 0, 1, 0}, {0.707107, 1, 0.707107}},
                           {{0.419470, 0.229416, 0.878301, -0.165878, 0.938348, 0.303296},
                            {0.419470, 0.229416, 0.878301}},
                           {{-0.215923, 0.493857, 0.842308, 0.734784, 0.535221, 0.416690},
                            {-0.842746, -0.288293, 0.004464}}},
                          "L1");
  expectNear(row(l1, "error", 0, 3), {1, 0, -1}, kLatticeSpec, "L1 e1");
  expectNear(row(l1, "error", 1, 3), {0.353553, -0.5, -0.646447}, kLatticeSpec, "L1 e2");
  expectNear(row(l1, "error", 2, 3), {-1.751226, 0.647279, -0.271710}, kLatticeSpec, "L1 e3");
  expectNear(row(l1, "write_strength", 0, 2), {-1, 0}, kLatticeSpec, "L1 α1");
  expectNear(row(l1, "write_strength", 2, 2), {0.5, -1}, kLatticeSpec, "L1 α3");
  expectNear(row(l1, "beta", 0, 2), {0.707107, 1}, kLatticeSpec, "L1 β1");
  expectNear(row(l1, "beta", 1, 2), {0.917663, 0.938348}, kLatticeSpec, "L1 β2");
  expectNear(row(l1, "beta", 2, 2), {0.762526, 0.506719}, kLatticeSpec, "L1 β3");
  EXPECT_NEAR(row(l1, "slot_cosines", 1, 4)[1], 0.412076, kLatticeSpec);
  EXPECT_NEAR(row(l1, "slot_cosines", 2, 4)[1], 0.456647, kLatticeSpec);
  for (double n : l1.get("slot_norms").data) EXPECT_NEAR(n, 1, 1e-6);  // ‖s_i‖ = 1

  // L2: DEC, unnormalised OSR.
  Trace l2 = checkSpecRun(
      dev, specModel(LatticeMode::Osr, LatticeVariant::Dec), specRows(),
      {{{1, 0, 1, 0, 1, 0}, {1, 1, 1}},
       {{0.823223, 0.176777, 1.176777, -0.176777, 1, 0.323223}, {0.823223, 0.176777, 1.176777}},
       {{0.393951, 0.486355, 1.430572, 1.457204, 1.137802, 0.790539},
        {-1.260228, -0.894625, -0.075253}}},
      "L2");
  EXPECT_NEAR(row(l2, "write_strength", 1, 2)[0], -0.353553, kLatticeSpec);
  expectNear(row(l2, "error", 2, 3), {-1.900681, 0.754526, -0.206673}, kLatticeSpec, "L2 e3");
  expectNear(row(l2, "slot_norms", 2, 2), {1.561498, 2.010718}, kLatticeSpec, "L2 norms");

  // L3: ENC, normalised (e ∈ R^m from the device).
  Trace l3 = checkSpecRun(
      dev, specModel(LatticeMode::Nosr, LatticeVariant::Enc), specRows(),
      {{{0.707107, 0, 0.707107, 0, 1, 0}, {0.707107, 1, 0.707107}},
       {{0.785776, -0.200749, 0.585026, 0, 0.894427, -0.447214}, {0.785776, -0.200749, 0.585026}},
       {{0.250284, -0.760367, 0.599333, 0.472849, 0.859656, -0.193403},
        {-0.347708, -1.239840, 0.493070}}},
      "L3");
  expectNear(row(l3, "error", 0, 2), {-1, 0}, kLatticeSpec, "L3 e1");
  expectNear(row(l3, "error", 1, 2), {0.207107, 0.5}, kLatticeSpec, "L3 e2");
  expectNear(row(l3, "error", 2, 2), {1.585026, -1.105573}, kLatticeSpec, "L3 e3");

  // L4: SIM, normalised.
  checkSpecRun(
      dev, specModel(LatticeMode::Nosr, LatticeVariant::Sim), specRows(),
      {{{0.707107, 0, 0.707107, 0, 1, 0}, {}},
       {{0.389822, 0.426401, 0.816223, 0, 0.894427, 0.447214}, {0.389822, 0.426401, 0.816223}},
       {{0.042358, 0.086963, 0.995311, 0.674200, 0.737863, 0.031831},
        {-0.653021, -0.694381, 0.465824}}},
      "L4");

  // L5: DEC, normalised, μ = 0.5 (slot 2 at t = 1: β = 2, still unit length).
  Trace l5 = checkSpecRun(dev, specModel(LatticeMode::Nosr, LatticeVariant::Dec), specRows(0.5),
                          {{{0.447214, 0, 0.894427, 0, 1, 0}, {}},
                           {{0.039209, 0.415227, 0.908872, -0.192054, 0.858892, 0.474784}, {}},
                           {{-0.787532, 0.382015, 0.483588, 0.850062, 0.418679, 0.319534},
                            {-1.243828, -0.227671, -0.077740}}},
                          "L5");
  EXPECT_NEAR(row(l5, "beta", 0, 2)[1], 2, 1e-6);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, SpecVectorL6NonRedundancy) {
  LSRL_VULKAN_DEVICE(dev);
  // DEC: the error lies along slot 1, so nothing moves although it is not zero.
  Trace dec = checkSpecRun(dev, specModel(LatticeMode::Nosr, LatticeVariant::Dec, 2, 2),
                           {seed_models::packLatticeToken({{1, 0}, {2, 0}, {1, 0}, 1, 1})},
                           {{{1, 0, 0, 1}, {1, 0}}}, "L6 DEC");
  expectNear(row(dec, "error", 0, 2), {-1, 0}, kLatticeSpec, "L6 e");
  EXPECT_GT(dec.get("loss_before").data[0], 0);
  // SIM: slot 1 (parallel to v) stays, slot 2 turns to (0.707107, 0.707107).
  checkSpecRun(dev, specModel(LatticeMode::Nosr, LatticeVariant::Sim, 2, 2),
               {seed_models::packLatticeToken({{1, 1}, {1, 0}, {1, 1}, 1, 1})},
               {{{1, 0, 0.707107, 0.707107}, {1.707107, 0.707107}}}, "L6 SIM");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, MatchesTheCpuTraceOnTheDefaultTask) {
  LSRL_VULKAN_DEVICE(dev);
  const LatticeModel model{LatticeConfig{}};  // NOSR + DEC, one head, projected input
  expectParityWithCpu(dev, model, model.taskInput(model.tasks().front(), 1), "default task");
  // Every demo through the direct input, two heads with their own tokens.
  LatticeConfig c;
  c.input = "direct";
  c.heads = 2;
  c.m = 4;
  c.d = 3;
  const LatticeModel direct(c);
  for (const std::string& task : direct.tasks())
    expectParityWithCpu(dev, direct, direct.taskInput(task, 3), "direct, task " + task);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// A projected-input model of odd sizes with sigmoid γ and μ and a random token stream.
LatticeConfig randomConfig(LatticeMode mode, LatticeVariant variant, int heads, int d, int m) {
  LatticeConfig c;
  c.heads = heads;
  c.dIn = 5;
  c.d = d;
  c.m = m;
  c.seed = 11;
  c.options.mode = mode;
  c.options.variant = variant;
  c.gammaMode = "sigmoid";
  c.muMode = "sigmoid";
  c.init = "random_orthonormal";
  return c;
}

TEST(VulkanLattice, EveryOrthogonalFormVariantAndBeta) {
  LSRL_VULKAN_DEVICE(dev);
  for (LatticeMode mode : {LatticeMode::Nosr, LatticeMode::Osr, LatticeMode::L1})
    for (LatticeVariant variant : {LatticeVariant::Dec, LatticeVariant::Enc, LatticeVariant::Sim}) {
      const LatticeConfig c = randomConfig(mode, variant, 2, 5, 3);
      const std::string what =
          std::string(latticeModeName(mode)) + " " + latticeVariantName(variant);
      expectParityWithCpu(dev, LatticeModel(c), seededRandomRows(c.dIn, 37, 1), what);
    }
  LatticeConfig closed = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 1, 4, 6);  // m > d
  closed.options.beta = LatticeBeta::ClosedForm;
  closed.activation = "tanh";
  expectParityWithCpu(dev, LatticeModel(closed), seededRandomRows(closed.dIn, 29, 2),
                      "nosr closed-form beta, m > d");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, ComparisonFormsChunksAndTheOutputGate) {
  LSRL_VULKAN_DEVICE(dev);
  // Half-scale tokens: these forms do not renormalise every step, so at unit scale slots
  // grow or shrink (delta's γ‖k‖² > 2 overshoots, a chunk's summed steps too) and the
  // diagnostics divided by a short slot's ‖s‖² (parallel, orthogonal, the losses) amplify
  // the slots' fp32 rounding (2e-7) to 1.3e-5 of 1 + |cpu| by T = 37; the slots and y stay
  // within a few 1e-6 there.
  for (LatticeMode mode :
       {LatticeMode::OutputNormalised, LatticeMode::Delta, LatticeMode::LinearAttention,
        LatticeMode::Mamba2, LatticeMode::GatedDeltaNet}) {
    const LatticeConfig c = randomConfig(mode, LatticeVariant::Dec, 2, 5, 3);
    expectParityWithCpu(dev, LatticeModel(c), seededRandomRows(c.dIn, 37, 3, 0.5),
                        latticeModeName(mode));
  }
  // §1.7's chunked approximation: T not a multiple of the chunk.
  for (LatticeMode mode : {LatticeMode::Nosr, LatticeMode::Osr})
    for (LatticeVariant variant : {LatticeVariant::Dec, LatticeVariant::Enc}) {
      LatticeConfig c = randomConfig(mode, variant, 2, 5, 3);
      c.chunk = 4;
      expectParityWithCpu(
          dev, LatticeModel(c), seededRandomRows(c.dIn, 37, 4, 0.5),
          std::string("chunk 4, ") + latticeModeName(mode) + " " + latticeVariantName(variant));
    }
  // The output gate and SiLU projections, three heads, a constant γ.
  LatticeConfig gated = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 3, 7, 5);
  gated.outputGate = true;
  gated.activation = "silu";
  gated.gammaMode = "constant";
  gated.gamma = 0.7;
  expectParityWithCpu(dev, LatticeModel(gated), seededRandomRows(gated.dIn, 23, 5), "output gate");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, WideHeadsAndMoreSlotsOrDimensionsThanInvocations) {
  LSRL_VULKAN_DEVICE(dev);
  // A 33×19 head: e = Φk − v sums 19 slots and Δs = α P(s) e 33 dimensions, so `delta` has
  // the largest fp32 error of these tests (6.6e-6 on lavapipe, 8.8e-6 on an H100; it does
  // not grow with T).
  const LatticeConfig wide = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 1, 33, 19);
  expectParityWithCpu(dev, LatticeModel(wide), seededRandomRows(wide.dIn, 29, 6), "d = 33, m = 19");
  // Over 256 dimensions or slots: invocations take several (the workgroup is capped).
  for (const auto& [d, m] : {std::pair{300, 3}, std::pair{2, 300}}) {
    const LatticeConfig c = randomConfig(LatticeMode::Nosr, LatticeVariant::Enc, 1, d, m);
    expectParityWithCpu(dev, LatticeModel(c), seededRandomRows(c.dIn, 9, 7),
                        "d = " + std::to_string(d) + ", m = " + std::to_string(m));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, BatchMatchesTheCpuPerSequence) {
  LSRL_VULKAN_DEVICE(dev);
  const LatticeConfig c = randomConfig(LatticeMode::Nosr, LatticeVariant::Enc, 3, 5, 3);
  const LatticeModel model(c);
  for (size_t B : {size_t(1), size_t(5)}) {
    std::vector<Sequence> batch;
    for (size_t b = 0; b < B; ++b) batch.push_back(seededRandomRows(c.dIn, 19, 10 + b));
    const std::vector<Sequence> gpu = runLatticeOnDevice(dev, model, batch);
    ASSERT_EQ(gpu.size(), B);
    double worst = 0;
    for (size_t b = 0; b < B; ++b) {
      const Sequence cpu = model.run(batch[b]);
      ASSERT_EQ(gpu[b].size(), cpu.size());
      for (size_t t = 0; t < cpu.size(); ++t)
        for (size_t j = 0; j < cpu[t].size(); ++j) {
          const double err = std::fabs(gpu[b][t][j] - cpu[t][j]) / (1 + std::fabs(cpu[t][j]));
          EXPECT_LE(err, kParity) << "B=" << B << " b=" << b << " t=" << t << " j=" << j;
          worst = std::max(worst, err);
        }
    }
    std::printf("  batch B=%zu: max |gpu - cpu| / (1 + |cpu|) = %.2e\n", B, worst);
  }
  EXPECT_TRUE(runLatticeOnDevice(dev, model, std::vector<Sequence>{}).empty());
  const std::vector<Sequence> empties = runLatticeOnDevice(dev, model, {Sequence{}, Sequence{}});
  ASSERT_EQ(empties.size(), 2u);
  EXPECT_TRUE(empties[0].empty());
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// lavapipe (llvmpipe, CI's driver) silently stops a shader's loops after 65,535 iterations
// counted over an invocation's lifetime, inner loops included (those of fixed length up to
// 32 or so it unrolls, so d = 40 rather than 16): one dispatch over all T tokens of a
// 40×8 head went wrong from t ≈ 345, a 300×3 one from the first 250 steps. The device
// splits T into dispatches that continue from the state the last one left — with a chunk,
// S_{t0} and the chunk's sum too. (ENC is left out: over thousands of random tokens its
// float64 reference itself moves by 1e-2 when the input is rounded to fp32.)
TEST(VulkanLattice, LongSequencesSpanSeveralDispatches) {
  LSRL_VULKAN_DEVICE(dev);
  constexpr size_t T = 3000;
  const LatticeConfig dec = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 1, 40, 8);
  ASSERT_LT(3 * size_t(latticeStepsPerDispatch(dev.info(), dec, true)), T);
  expectParityWithCpu(dev, LatticeModel(dec), seededRandomRows(dec.dIn, T, 12), "T = 3000, d = 40");
  // Chunks cut by a dispatch's end, and chunks longer than a dispatch (a quarter-scale
  // input for those: 100 summed steps at half scale drift to 1.2e-5 of 1 + |cpu| in fp32,
  // the same on every split of T — the carried state is copied exactly).
  for (int chunk : {9, 100}) {
    LatticeConfig c = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 1, 40, 8);
    c.chunk = chunk;
    ASSERT_NE(latticeStepsPerDispatch(dev.info(), c, true) % uint32_t(chunk), 0u);
    expectParityWithCpu(dev, LatticeModel(c),
                        seededRandomRows(c.dIn, T, 13, chunk > 10 ? 0.25 : 0.5),
                        "T = 3000, d = 40, chunk " + std::to_string(chunk));
  }
  const LatticeConfig wide = randomConfig(LatticeMode::Osr, LatticeVariant::Dec, 1, 300, 3);
  ASSERT_LT(3 * size_t(latticeStepsPerDispatch(dev.info(), wide, true)), 500u);
  expectParityWithCpu(dev, LatticeModel(wide), seededRandomRows(wide.dIn, 500, 14, 0.5),
                      "T = 500, d = 300");
  // The batched entry point (no trace), two sequences × two heads.
  const LatticeConfig two = randomConfig(LatticeMode::Nosr, LatticeVariant::Dec, 2, 40, 8);
  const LatticeModel model(two);
  const std::vector<Sequence> batch{seededRandomRows(two.dIn, T, 15),
                                    seededRandomRows(two.dIn, T, 16)};
  const std::vector<Sequence> gpu = runLatticeOnDevice(dev, model, batch);
  ASSERT_EQ(gpu.size(), batch.size());
  double worst = 0;
  for (size_t b = 0; b < batch.size(); ++b) {
    const Sequence cpu = model.run(batch[b]);
    ASSERT_EQ(gpu[b].size(), cpu.size());
    for (size_t t = 0; t < cpu.size(); ++t)
      for (size_t j = 0; j < cpu[t].size(); ++j) {
        const double err = std::fabs(gpu[b][t][j] - cpu[t][j]) / (1 + std::fabs(cpu[t][j]));
        ASSERT_LE(err, kParity) << "b=" << b << " t=" << t << " j=" << j;
        worst = std::max(worst, err);
      }
  }
  std::printf("  batch of 2, T = 3000: max |gpu - cpu| / (1 + |cpu|) = %.2e\n", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// §1.8's conv and qk_norm on projected input: both act in the host's float64 projections
// (LatticeModel::headTokens), which the device uploads rounded to fp32 like any token, so
// the rule of the other projected tests holds: kParity.
TEST(VulkanLattice, ProjectedConvAndQkNorm) {
  LSRL_VULKAN_DEVICE(dev);
  for (LatticeMode mode : {LatticeMode::Nosr, LatticeMode::Delta}) {
    LatticeConfig c = randomConfig(mode, LatticeVariant::Dec, 2, 5, 3);
    c.conv = 4;
    c.qkNorm = "l2";
    c.outputGate = mode == LatticeMode::Delta;
    expectParityWithCpu(dev, LatticeModel(c), seededRandomRows(c.dIn, 37, 17),
                        std::string("conv 4, l2 keys, ") + latticeModeName(mode));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// One-hot rows of a seeded random token stream.
Sequence oneHotRows(int width, size_t T, uint64_t seed) {
  seed_models::Rng rng(seed);
  Sequence rows(T, Vector(static_cast<size_t>(width), 0.0));
  for (Vector& r : rows) r[rng.next() % static_cast<uint64_t>(width)] = 1;
  return rows;
}

// The token model (§1.8a), 2 layers of 2 heads with conv 4, l2 keys and an MLP: each
// layer's recurrence on the device, the rest on the host in float64 from the device's y.
// Layer 1 reads layer 0's fp32 rounding through W_o, the residual and a LayerNorm (which
// divides by the stream's spread, about 1 here), so its arrays carry a few times layer 0's
// error: measured on lavapipe 9.1e-7 (nosr), 2.8e-6 (delta), 1.4e-6 (gated_deltanet), all
// in layer 1, within kParity. linear_attention's state is the sum of every v kᵀ so far
// (no decay, |S| grows with T), and layer 1's loss_after −⟨S k, v⟩ gathers the rounding
// of 40 such sums on top of layer 0's: 8.9e-6 there, so it gets 3·kParity, room for
// another driver's order of summation.
TEST(VulkanLattice, TokenModelMatchesTheCpu) {
  LSRL_VULKAN_DEVICE(dev);
  for (const char* mode : {"nosr", "delta", "gated_deltanet", "linear_attention"}) {
    const double tolerance = std::string(mode) == "linear_attention" ? 3 * kParity : kParity;
    const LatticeModel model(LatticeConfig::fromJson({{"input", "tokens"},
                                                      {"d_in", 11},
                                                      {"d_model", 16},
                                                      {"heads", 2},
                                                      {"d", 6},
                                                      {"m", 4},
                                                      {"layers", 2},
                                                      {"d_ff", 24},
                                                      {"d_out", 9},
                                                      {"conv", 4},
                                                      {"qk_norm", "l2"},
                                                      {"mode", mode},
                                                      {"mu_mode", "sigmoid"},
                                                      {"init", "random_orthonormal"},
                                                      {"seed", 21}}));
    expectParityWithCpu(dev, model, oneHotRows(11, 40, 5), std::string("tokens, ") + mode,
                        tolerance);
    // The batched entry point: every sequence as the CPU runs it alone.
    const std::vector<Sequence> batch{oneHotRows(11, 23, 6), oneHotRows(11, 23, 7),
                                      oneHotRows(11, 23, 8)};
    const std::vector<Sequence> gpu = runLatticeOnDevice(dev, model, batch);
    ASSERT_EQ(gpu.size(), batch.size());
    for (size_t b = 0; b < batch.size(); ++b) {
      const Sequence cpu = model.run(batch[b]);
      ASSERT_EQ(gpu[b].size(), cpu.size());
      for (size_t t = 0; t < cpu.size(); ++t)
        for (size_t j = 0; j < cpu[t].size(); ++j)
          EXPECT_NEAR(gpu[b][t][j], cpu[t][j], tolerance * (1 + std::fabs(cpu[t][j])))
              << mode << " b=" << b << " t=" << t << " j=" << j;
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, EmptySequenceGivesTheCpuTraceShapes) {
  LSRL_VULKAN_DEVICE(dev);
  const LatticeModel model{LatticeConfig{}};
  Trace cpu, gpu;
  model.run({}, &cpu);
  EXPECT_TRUE(runLatticeOnDevice(dev, model, {}, &gpu).empty());
  expectTracesAgree(gpu, cpu, "empty");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLattice, ErrorsNameTheProblem) {
  LSRL_VULKAN_DEVICE(dev);
  const LatticeModel model{LatticeConfig{}};  // d_in = 3
  expectError(
      [&] {
        runLatticeOnDevice(dev, model, {{1, 2, 3}, {1, 2}});
      },
      "lattice", "token 1 has 2 features, expected 3");
  expectError(
      [&] {
        runLatticeOnDevice(dev, model, {Sequence{{1, 2, 3}}, Sequence{{1, 2}}});
      },
      "sequence 1", "token 0 has 2 features, expected 3");
  expectError(
      [&] {
        runLatticeOnDevice(dev, model, {Sequence(2, Vector(3)), Sequence(3, Vector(3))});
      },
      "sequence 1 has 3 tokens", "one length");
  // A head whose slots cannot fit in shared memory is refused, naming m·d.
  LatticeConfig big;
  big.d = big.m = 256;
  expectError(
      [&] {
        runLatticeOnDevice(dev, LatticeModel(big), {{1, 2, 3}});
      },
      "lattice on Vulkan", "m·d = 65536");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
