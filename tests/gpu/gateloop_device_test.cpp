// GateLoop on Vulkan (core/gpu/gateloop_device.h) against the float64 CPU reference:
// the spec's test vectors G1 and G2 (docs/spec/seed-models.md §6.2) through the device operator,
// the operator on random inputs (every scan path, chunks that T does not fill, H_0), the
// whole model's trace on the default task and on random configs and inputs (B = 1 and
// B > 1), and the errors.
//
// Tolerance: fp32 parity |gpu − cpu| ≤ 1e-5·(1 + |cpu|) element by element, for every
// trace array (the spec's vectors: 1e-6, as the spec rounds to 6 decimals).
#include "core/gpu/gateloop_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <string>

#include "common/expect_error.h"
#include "gpu/scan_cases.h"
#include "gpu/trace_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using seed_models::Complex;
using seed_models::GateLoopConfig;
using seed_models::GateLoopInputs;
using seed_models::GateLoopModel;
using seed_models::Sequence;
using seed_models::Trace;
using testing_common::expectError;
using testing_vulkan::expectClose;
using testing_vulkan::expectTracesAgree;
using testing_vulkan::kParity;
using testing_vulkan::randomRows;
using testing_vulkan::seedModelScanOptions;

TEST(VulkanGateLoop, G1MaxHeadedVector) {
  LSRL_VULKAN_DEVICE(dev);
  // §6.2 G1: two channels (d_h = 1), a = σ(γ_pre)·exp(iθ_pre).
  const double ln3 = std::log(3.0), ln4 = std::log(4.0), pi = std::numbers::pi;
  GateLoopInputs in = seed_models::gateLoopInputs(2, 1, 3);
  const double gamma[3][2] = {{0, ln4}, {ln3, ln4}, {0, -ln3}};
  const double theta[3][2] = {{0, pi / 2}, {0, pi / 2}, {0, pi}};
  in.k = {1, 1, 2, 0.5, 0, 1};
  in.v = {1, 2, -1, 5, 3, 1};
  in.q = {1, 1, 1, 1, 2, 1};
  for (size_t n = 0; n < 3; ++n)
    for (size_t c = 0; c < 2; ++c)
      in.logA[2 * n + c] = seed_models::gateLoopLogTransition(gamma[n][c], theta[n][c]);
  const std::vector<Complex> wantH = {1, 2, -1.25, {2.5, 1.6}, -0.625, {0.375, -0.4}};
  const std::vector<Complex> wantY = {1, 2, -1.25, {2.5, 1.6}, -1.25, {0.375, -0.4}};
  for (const auto& [name, options] : seedModelScanOptions(dev)) {
    const GateLoopDeviceResult r = runGateLoopOperatorOnDevice(dev, {in}, true, options)[0];
    expectClose(r.y, wantY, "G1 y " + name, 1e-6);
    expectClose(r.states, wantH, "G1 h " + name, 1e-6);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanGateLoop, G2OuterProductHeadVector) {
  LSRL_VULKAN_DEVICE(dev);
  // §6.2 G2: one head of d_h = 2, a given directly; rows of H are the key index.
  GateLoopInputs in = seed_models::gateLoopInputs(1, 2, 3);
  const std::vector<Complex> a = {0.5, {0, 0.5}, 0.5, -0.5, {0, 0.8}, 0.25};
  for (size_t i = 0; i < a.size(); ++i) in.logA[i] = seed_models::gateLoopLogOf(a[i]);
  in.k = {1, 0, 1, 1, 0, 2};
  in.v = {1, 2, 0, 1, 1, -1};
  in.q = {1, 0, 0, 1, 1, 1};
  const std::vector<Complex> wantH = {1, 2, 0, 0, 0.5, 2, 0, 1, {0, 0.4}, {0, 1.6}, 2, -1.75};
  const std::vector<Complex> wantY = {1, 2, 0, 1, {2, 0.4}, {-1.75, 1.6}};
  for (const auto& [name, options] : seedModelScanOptions(dev)) {
    const GateLoopDeviceResult r = runGateLoopOperatorOnDevice(dev, {in}, true, options)[0];
    expectClose(r.y, wantY, "G2 y " + name, 1e-6);
    expectClose(r.states, wantH, "G2 H " + name, 1e-6);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// Random operator inputs: |a| = σ(γ) with γ ~ N(2, 1) (memories of ~10 steps), phases
// ~ U[−π, π], q, k, v ~ N(0, 1), optionally a random H_0.
GateLoopInputs randomInputs(std::mt19937& rng, int heads, int dh, int steps, bool h0) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> phase(-std::numbers::pi, std::numbers::pi);
  GateLoopInputs in = seed_models::gateLoopInputs(heads, dh, steps);
  for (Complex& l : in.logA) l = seed_models::gateLoopLogTransition(2 + normal(rng), phase(rng));
  for (auto* x : {&in.q, &in.k, &in.v})
    for (double& e : *x) e = normal(rng);
  if (h0) {
    in.h0.resize(static_cast<size_t>(heads * dh * dh));
    for (Complex& h : in.h0) h = {normal(rng), normal(rng)};
  }
  return in;
}

TEST(VulkanGateLoop, OperatorMatchesRecurrenceOnRandomInputs) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(5);
  struct Case {
    int heads, dh, steps, batch;
    bool h0;
  };
  double worst = 0;
  for (const Case& c : {Case{3, 1, 37, 1, false}, Case{2, 3, 203, 3, true},
                        Case{1, 4, 64, 2, false}, Case{5, 2, 1, 4, true}}) {
    std::vector<GateLoopInputs> batch;
    for (int b = 0; b < c.batch; ++b)
      batch.push_back(randomInputs(rng, c.heads, c.dh, c.steps, c.h0 && b != 1));
    for (const auto& [name, options] : seedModelScanOptions(dev)) {
      const std::vector<GateLoopDeviceResult> got =
          runGateLoopOperatorOnDevice(dev, batch, true, options);
      ASSERT_EQ(got.size(), batch.size());
      for (size_t b = 0; b < batch.size(); ++b) {
        std::vector<Complex> states;
        const std::vector<Complex> y = seed_models::gateLoopRecurrent(batch[b], &states);
        const std::string what = name + " H=" + std::to_string(c.heads) +
                                 " dh=" + std::to_string(c.dh) + " T=" + std::to_string(c.steps) +
                                 " b=" + std::to_string(b);
        worst = std::max(worst, expectClose(got[b].y, y, what + " y"));
        worst = std::max(worst, expectClose(got[b].states, states, what + " states"));
      }
    }
  }
  std::printf("gateloop operator: max relative difference %.3g\n", worst);
  EXPECT_TRUE(runGateLoopOperatorOnDevice(dev, {}).empty());
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanGateLoop, DefaultTaskTraceMatchesCpu) {
  LSRL_VULKAN_DEVICE(dev);
  const GateLoopModel model;
  double worst = 0;
  for (const std::string& task : model.tasks()) {
    const Sequence x = model.taskInput(task, 1);
    Trace cpu, device;
    const Sequence want = model.run(x, &cpu);
    const Sequence got = runGateLoopOnDevice(dev, model, x, &device);
    EXPECT_EQ(device.get("output").data.size(), 64u * 50u);
    ASSERT_EQ(got.size(), want.size());
    for (size_t t = 0; t < got.size(); ++t)
      for (size_t i = 0; i < got[t].size(); ++i)
        EXPECT_NEAR(got[t][i], want[t][i], kParity * (1 + std::abs(want[t][i])));
    worst = std::max(worst, expectTracesAgree(device, cpu, task));
  }
  std::printf("gateloop default tasks: max relative trace difference %.3g\n", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanGateLoop, RandomConfigsMatchCpu) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(11);
  auto config = [](const nlohmann::json& j) { return GateLoopConfig::fromJson(j); };
  const std::vector<GateLoopConfig> configs = {
      config({{"d_h", 2}, {"layers", 2}, {"output_projection", true}, {"seed", 3}}),
      config({{"d_model", 6},
              {"d_h", 3},
              {"layers", 2},
              {"transitions", "fixed"},
              {"magnitude_activation", "exp_exp"},
              {"phase_activation", "pi_tanh"},
              {"seed", 4}}),
      config({{"d_model", 5},
              {"layer_norm", false},
              {"channel_mixing", false},
              {"residual", false},
              {"d_out", 7},
              {"seed", 5}})};
  double worst = 0;
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    const GateLoopModel model(configs[ci]);
    for (const size_t T : {size_t(1), size_t(45), size_t(130)}) {
      const std::string what = "config " + std::to_string(ci) + " T=" + std::to_string(T);
      const Sequence x = randomRows(rng, T, model.inputWidth());
      Trace cpu, device;
      model.run(x, &cpu);
      runGateLoopOnDevice(dev, model, x, &device);
      worst = std::max(worst, expectTracesAgree(device, cpu, what));
      // A batch of three, one tile: each sequence as the CPU runs it alone.
      const std::vector<Sequence> batch = {x, randomRows(rng, T, model.inputWidth()),
                                           randomRows(rng, T, model.inputWidth())};
      const std::vector<Sequence> got = runGateLoopOnDevice(dev, model, batch);
      ASSERT_EQ(got.size(), 3u);
      for (size_t b = 0; b < 3; ++b) {
        const Sequence want = model.run(batch[b]);
        for (size_t t = 0; t < T; ++t)
          for (size_t i = 0; i < want[t].size(); ++i) {
            const double err = std::abs(got[b][t][i] - want[t][i]) / (1 + std::abs(want[t][i]));
            EXPECT_LE(err, kParity) << what << " b=" << b << " t=" << t << " i=" << i;
            worst = std::max(worst, err);
          }
      }
    }
  }
  std::printf("gateloop random configs: max relative difference %.3g\n", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanGateLoop, ErrorsEmptyAndNonFinite) {
  LSRL_VULKAN_DEVICE(dev);
  const GateLoopModel model;
  const char* kWhat = "gateloop on Vulkan";
  expectError([&] { runGateLoopOnDevice(dev, model, Sequence{seed_models::Vector(5, 0.0)}); },
              kWhat, "token 0 has 5 features, expected 6");
  const Sequence x = model.taskInput("memory_horizon", 0);
  Sequence bad = x;
  bad[3].pop_back();
  expectError(
      [&] {
        runGateLoopOnDevice(dev, model, std::vector<Sequence>{x, x, bad});
      },
      kWhat, "sequence 2: gateloop: token 3 has 5 features, expected 6");
  expectError(
      [&] {
        runGateLoopOnDevice(dev, model, std::vector<Sequence>{x, Sequence(x.begin(), x.end() - 1)});
      },
      kWhat, "sequence 1: 63 tokens, sequence 0 has 64");
  GateLoopInputs in = seed_models::gateLoopInputs(2, 2, 4), wrong = in;
  wrong.q.pop_back();
  expectError(
      [&] {
        runGateLoopOperatorOnDevice(dev, {in, wrong});
      },
      kWhat, "input 1: gateloop operator: q entries");
  expectError(
      [&] {
        runGateLoopOperatorOnDevice(dev, {in, seed_models::gateLoopInputs(1, 4, 4)});
      },
      kWhat, "input 1: heads = 1, d_h = 4, steps = 4, input 0 has 2, 2, 4");

  // Empty: no tokens, arrays of length 0, as the CPU reference.
  Trace trace;
  EXPECT_TRUE(runGateLoopOnDevice(dev, model, Sequence{}, &trace).empty());
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{0, 50}));
  EXPECT_EQ(trace.get("state").shape, (std::vector<int64_t>{0, 8, 1, 1, 2}));
  EXPECT_TRUE(runGateLoopOnDevice(dev, model, std::vector<Sequence>{}).empty());
  // A NaN token: its output and every later one non-finite, the earlier ones not.
  Sequence withNan = x;
  withNan[5][0] = std::nan("");
  const Sequence y = runGateLoopOnDevice(dev, model, withNan);
  for (size_t n = 0; n < y.size(); ++n) EXPECT_EQ(std::isfinite(y[n][0]), n < 5) << n;
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
