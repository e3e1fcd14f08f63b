// minGRU and minLSTM on Vulkan (core/gpu/min_rnn_device.h) against the float64 CPU
// reference: the spec's test vectors M1–M3-log (docs/spec/seed-models.md §6.3) through the device
// cell on every scan path and M4 through a whole model with explicit weights; both cells'
// default models on their tasks in every mode (every trace array compared); random
// configs and inputs (B = 1 and B = 3, odd sizes, T not a multiple of any chunk, T > 256
// where the trace drops attention); the errors, empty and non-finite inputs; the timing.
//
// Tolerance: fp32 parity |gpu − cpu| ≤ 1e-5·(1 + |cpu|) element by element, for every
// trace array; the spec's vectors, rounded to 6 decimals there, within 1e-6·(1 + |want|).
#include "core/gpu/min_rnn_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>

#include "common/expect_error.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"
#include "gpu/scan_cases.h"
#include "gpu/trace_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using seed_models::MinGruModel;
using seed_models::MinLstmModel;
using seed_models::MinRnnCell;
using seed_models::MinRnnConfig;
using seed_models::MinRnnModel;
using seed_models::MinRnnVariant;
using seed_models::Sequence;
using seed_models::Trace;
using testing_common::expectError;
using testing_vulkan::expectClose;
using testing_vulkan::expectTracesAgree;
using testing_vulkan::kParity;
using testing_vulkan::randomRows;
using testing_vulkan::seedModelScanOptions;

// The spec's vectors are rounded to 6 decimals.
constexpr double kMinRnnSpec = 1e-6;

// Outputs of a batch against the CPU reference run on each sequence alone.
double expectBatchMatches(const std::vector<Sequence>& got, const MinRnnModel& model,
                          const std::vector<Sequence>& batch, const std::string& what) {
  EXPECT_EQ(got.size(), batch.size()) << what;
  double worst = 0;
  for (size_t b = 0; b < std::min(got.size(), batch.size()); ++b) {
    const Sequence want = model.run(batch[b]);
    EXPECT_EQ(got[b].size(), want.size()) << what;
    for (size_t t = 0; t < std::min(got[b].size(), want.size()); ++t)
      for (size_t i = 0; i < want[t].size(); ++i) {
        const double err = std::abs(got[b][t][i] - want[t][i]) / (1 + std::abs(want[t][i]));
        EXPECT_LE(err, kParity) << what << " b=" << b << " t=" << t << " i=" << i;
        worst = std::max(worst, err);
      }
  }
  return worst;
}

// §6.3's shared inputs: d_h = 2, T = 3, h_0 = (0, 1), the candidates' pre-activations.
const double kLn3 = std::log(3.0), kLn4 = std::log(4.0);
const std::vector<double> kHPre = {1, -2, 0.5, 4, -1, 0};
const std::vector<double> kRawH0 = {0, 1};

struct SpecCase {
  std::string name;
  MinRnnCell cell;
  MinRnnVariant variant;
  std::vector<std::vector<double>> gatePre;  // k (minGRU); p, k (minLSTM)
  std::vector<double> candidate, hidden;
  std::vector<std::vector<double>> gates;  // z (minGRU); f, i, f', i' (minLSTM)
};

std::vector<SpecCase> specCases() {
  const std::vector<double> k1 = {0, kLn3, -kLn3, 0, kLn4, -kLn4};
  const std::vector<double> z = {0.5, 0.75, 0.25, 0.5, 0.8, 0.2};
  const std::vector<double> p = {0, kLn3, kLn4, -kLn4, -kLn3, kLn3};
  const std::vector<double> k3 = {0, -kLn3, 0, 0, kLn3, kLn3};
  const std::vector<std::vector<double>> lstmGates = {
      {0.5, 0.75, 0.8, 0.2, 0.25, 0.75},            // f
      {0.5, 0.25, 0.5, 0.5, 0.75, 0.75},            // i
      {0.5, 0.75, 0.615385, 0.285714, 0.25, 0.5},   // f'
      {0.5, 0.25, 0.384615, 0.714286, 0.75, 0.5}};  // i'
  const std::vector<double> gCandidate = {1.5, 0.119203, 1.0, 4.5, 0.268941, 0.5};
  return {
      {"M1",
       MinRnnCell::Gru,
       MinRnnVariant::Vanilla,
       {k1},
       kHPre,
       {0.5, -1.25, 0.5, 1.375, -0.7, 1.1},
       {z}},
      {"M2",
       MinRnnCell::Gru,
       MinRnnVariant::Log,
       {k1},
       gCandidate,
       {1.0, 0.464402, 1.0, 2.482201, 0.415153, 2.085761},
       {z}},
      {"M3",
       MinRnnCell::Lstm,
       MinRnnVariant::Vanilla,
       {p, k3},
       kHPre,
       {0.5, 0.25, 0.5, 2.928571, -0.625, 1.464286},
       lstmGates},
      {"M3-log",
       MinRnnCell::Lstm,
       MinRnnVariant::Log,
       {p, k3},
       gCandidate,
       {1.0, 1.154801, 1.0, 3.544229, 0.451706, 2.022114},
       lstmGates},
  };
}

TEST(VulkanMinRnn, SpecVectorsM1ToM3ThroughTheCell) {
  LSRL_VULKAN_DEVICE(dev);
  for (const SpecCase& c : specCases()) {
    MinRnnCellInputs in;
    in.pre = c.gatePre;
    in.pre.push_back(kHPre);
    in.h0 = seed_models::minRnnInitialState(kRawH0, c.variant);  // M2, M3-log: g(h_0) = (0.5, 1.5)
    for (const auto& [path, options] : seedModelScanOptions(dev)) {
      const std::string what = c.name + " " + path;
      const MinRnnCellResult r =
          runMinRnnCellOnDevice(dev, c.cell, c.variant, 2, {in}, true, options)[0];
      expectClose(r.hidden, c.hidden, what + " h", kMinRnnSpec);
      expectClose(r.candidate, c.candidate, what + " h_tilde", kMinRnnSpec);
      ASSERT_EQ(r.gates.size(), c.gates.size()) << what;
      for (size_t g = 0; g < c.gates.size(); ++g)
        expectClose(r.gates[g], c.gates[g], what + " gate " + std::to_string(g), kMinRnnSpec);
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// §6.3 M4: minGRU with explicit weights (W x + b orientation), h_0 = 0, as a whole model
// whose embedding, projection and head pass the tokens and states through.
MinGruModel m4Model() {
  MinRnnConfig c;
  c.dModel = c.dh = c.dOut = 2;
  c.task.vocabulary = 3;
  c.variant = MinRnnVariant::Vanilla;
  c.layerNorm = c.residual = false;
  auto tensor = [](const std::string& name, std::vector<int64_t> shape, std::vector<double> data) {
    Tensor t = seed_models::filled(name, std::move(shape), 0.0);
    t.data = std::move(data);
    return t;
  };
  return MinGruModel(
      c,
      {tensor("embed.weight", {2, 3}, {1, 0, 0, 0, 1, 0}),
       tensor("layers.0.z.weight", {2, 2}, {1, -1, 0.5, 2}),
       tensor("layers.0.z.bias", {2}, {0, -1}), tensor("layers.0.h.weight", {2, 2}, {2, 0, -1, 1}),
       tensor("layers.0.h.bias", {2}, {0.5, 0}),
       tensor("layers.0.out.weight", {2, 2}, {1, 0, 0, 1}),
       tensor("layers.0.out.bias", {2}, {0, 0}), tensor("head.weight", {2, 2}, {1, 0, 0, 1}),
       tensor("head.bias", {2}, {0, 0})});
}

TEST(VulkanMinRnn, SpecVectorM4ThroughTheModel) {
  LSRL_VULKAN_DEVICE(dev);
  const MinGruModel model = m4Model();
  const Sequence x = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  const std::vector<double> hidden = {1.827646, -0.377541, 1.470587, 0.629522, 1.985294, 0.114841};
  for (const auto& [path, options] : seedModelScanOptions(dev)) {
    Trace trace;
    const Sequence y = runMinRnnOnDevice(dev, model, x, &trace, options);
    expectClose(trace.get("z_pre").data, {1, -0.5, -1, 1, 0, 1.5}, "M4 z_pre " + path, kMinRnnSpec);
    expectClose(trace.get("z").data, {0.731059, 0.377541, 0.268941, 0.731059, 0.5, 0.817574},
                "M4 z " + path, kMinRnnSpec);
    expectClose(trace.get("h_tilde").data, {2.5, -1, 0.5, 1, 2.5, 0}, "M4 h_tilde " + path,
                kMinRnnSpec);
    expectClose(trace.get("hidden").data, hidden, "M4 hidden " + path, kMinRnnSpec);
    expectClose(trace.get("output").data, hidden, "M4 output " + path, kMinRnnSpec);
    ASSERT_EQ(y.size(), 3u);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// A default model of each cell in every mode (the variant "log" has all three) on both
// tasks: every trace array as the CPU's.
TEST(VulkanMinRnn, DefaultTasksTraceMatchesCpuInEveryMode) {
  LSRL_VULKAN_DEVICE(dev);
  double worst = 0;
  for (const std::string kind : {"mingru", "minlstm"})
    for (const std::string mode : {"sequential", "parallel", "log_space"}) {
      const auto model = seed_models::makeSeedModel(kind, {{"mode", mode}});
      const auto& minRnn = dynamic_cast<const MinRnnModel&>(*model);
      for (const std::string& task : model->tasks()) {
        const Sequence x = model->taskInput(task, 3);
        Trace cpu, device;
        const Sequence want = model->run(x, &cpu);
        const Sequence got = runMinRnnOnDevice(dev, minRnn, x, &device);
        ASSERT_EQ(got.size(), want.size());
        worst = std::max(worst, expectTracesAgree(device, cpu, kind + " " + mode + " " + task));
      }
    }
  // The hand-set hold toys (vanilla, gates at ±20): the latched token read out.
  auto holdToy = [&](const MinRnnModel& model) {
    const Sequence x = model.taskInput("hold", 5);
    Trace cpu, device;
    model.run(x, &cpu);
    runMinRnnOnDevice(dev, model, x, &device);
    worst = std::max(worst, expectTracesAgree(device, cpu, model.kind() + " hold toy"));
  };
  holdToy(MinGruModel::hold());
  holdToy(MinLstmModel::hold());
  std::printf("min_rnn default tasks: max relative trace difference %.3g\n", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMinRnn, RandomConfigsMatchCpu) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(11);
  struct Case {
    std::string kind;
    nlohmann::json config;
  };
  const std::vector<Case> cases = {
      {"mingru",
       {{"d_model", 5},
        {"d_h", 7},
        {"layers", 2},
        {"d_out", 3},
        {"vocabulary", 6},
        {"mode", "parallel"},
        {"seed", 3}}},
      {"minlstm",
       {{"d_model", 6},
        {"d_h", 3},
        {"layers", 2},
        {"variant", "vanilla"},
        {"layer_norm", false},
        {"seed", 4}}},
      {"minlstm",
       {{"d_model", 4}, {"d_h", 9}, {"mode", "log_space"}, {"residual", false}, {"seed", 5}}},
      {"mingru", {{"variant", "vanilla"}, {"d_h", 13}, {"mode", "parallel"}, {"seed", 6}}}};
  double worst = 0;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const auto model = seed_models::makeSeedModel(cases[ci].kind, cases[ci].config);
    const auto& minRnn = dynamic_cast<const MinRnnModel&>(*model);
    for (const size_t T : {size_t(1), size_t(45), size_t(300)}) {
      const std::string what =
          cases[ci].kind + " config " + std::to_string(ci) + " T=" + std::to_string(T);
      const Sequence x = randomRows(rng, T, model->inputWidth());
      Trace cpu, device;
      model->run(x, &cpu);
      runMinRnnOnDevice(dev, minRnn, x, &device);
      worst = std::max(worst, expectTracesAgree(device, cpu, what));
      // A batch of three on each scan path: each sequence as the CPU runs it alone.
      const std::vector<Sequence> batch = {x, randomRows(rng, T, model->inputWidth()),
                                           randomRows(rng, T, model->inputWidth())};
      for (const auto& [path, options] : seedModelScanOptions(dev))
        worst = std::max(worst, expectBatchMatches(runMinRnnOnDevice(dev, minRnn, batch, options),
                                                   minRnn, batch, what + " B=3 " + path));
    }
  }
  std::printf("min_rnn random configs: max relative difference %.3g\n", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// The cell alone on random pre-activations (wide enough that minLSTM's f and i both
// underflow in fp32 somewhere: the normalised gates stay finite), random h_0, every path.
TEST(VulkanMinRnn, CellMatchesRecurrenceOnRandomInputs) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(5);
  std::normal_distribution<double> normal;
  double worst = 0;
  for (const MinRnnCell cell : {MinRnnCell::Gru, MinRnnCell::Lstm})
    for (const MinRnnVariant variant : {MinRnnVariant::Vanilla, MinRnnVariant::Log})
      for (const auto& [width, steps] : {std::pair{3, 77}, std::pair{8, 130}}) {
        std::vector<MinRnnCellInputs> ins(2);
        for (MinRnnCellInputs& in : ins) {
          in.pre.assign(cell == MinRnnCell::Lstm ? 3 : 2, {});
          for (auto& pre : in.pre)
            for (int n = 0; n < width * steps; ++n) pre.push_back(3 * normal(rng));
          for (int u = 0; u < width; ++u) in.h0.push_back(std::abs(normal(rng)) + 0.1);
        }
        if (cell == MinRnnCell::Lstm) ins[0].pre[0][0] = ins[0].pre[1][0] = -120;
        for (const auto& [path, options] : seedModelScanOptions(dev)) {
          const auto got = runMinRnnCellOnDevice(dev, cell, variant, width, ins, false, options);
          for (size_t b = 0; b < ins.size(); ++b) {
            const seed_models::MinRnnGates g =
                cell == MinRnnCell::Lstm
                    ? seed_models::minLstmGates(ins[b].pre[0], ins[b].pre[1], ins[b].pre[2], width)
                    : seed_models::minGruGates(ins[b].pre[0], ins[b].pre[1], width);
            const std::string what = std::string(seed_models::minRnnCellKind(cell)) + " " +
                                     seed_models::minRnnVariantName(variant) + " " + path +
                                     " T=" + std::to_string(steps) + " b=" + std::to_string(b);
            worst = std::max(
                worst, expectClose(got[b].hidden,
                                   seed_models::minRnnSequential(g, variant, ins[b].h0), what));
          }
        }
      }
  std::printf("min_rnn cell: max relative difference %.3g\n", worst);
  EXPECT_TRUE(runMinRnnCellOnDevice(dev, MinRnnCell::Gru, MinRnnVariant::Log, 2, {}).empty());
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMinRnn, ErrorsEmptyAndNonFinite) {
  LSRL_VULKAN_DEVICE(dev);
  const MinGruModel model;
  const char* kWhat = "mingru on Vulkan";
  expectError([&] { runMinRnnOnDevice(dev, model, Sequence{seed_models::Vector(5, 0.0)}); }, kWhat,
              "mingru: token 0 has 5 features, expected 16");
  const Sequence x = model.taskInput("selective_copy", 0);
  Sequence bad = x;
  bad[3].pop_back();
  expectError(
      [&] {
        runMinRnnOnDevice(dev, model, std::vector<Sequence>{x, x, bad});
      },
      kWhat, "sequence 2: mingru: token 3 has 15 features, expected 16");
  expectError(
      [&] {
        runMinRnnOnDevice(dev, model, std::vector<Sequence>{x, Sequence(x.begin(), x.end() - 1)});
      },
      kWhat, "sequence 1: 67 tokens, sequence 0 has 68");
  const MinRnnCellInputs in{{std::vector<double>(6, 0.0), std::vector<double>(6, 0.0)}, {0, 0}};
  MinRnnCellInputs shortPre = in, wideH0 = in;
  shortPre.pre[1].pop_back();
  wideH0.h0.push_back(0);
  expectError(
      [&] {
        runMinRnnCellOnDevice(dev, MinRnnCell::Gru, MinRnnVariant::Log, 2, {in, shortPre});
      },
      kWhat, "input 1: mingru pre-activations of Linear 1 (steps x width): expected 6, got 5");
  expectError(
      [&] {
        runMinRnnCellOnDevice(dev, MinRnnCell::Gru, MinRnnVariant::Log, 2, {in, wideH0});
      },
      kWhat, "input 1: mingru h0 (width): expected 2, got 3");
  expectError([&] { runMinRnnCellOnDevice(dev, MinRnnCell::Lstm, MinRnnVariant::Log, 2, {in}); },
              "minlstm on Vulkan",
              "input 0: minlstm Linears' pre-activations (arrays): expected 3, got 2");
  expectError([&] { runMinRnnCellOnDevice(dev, MinRnnCell::Gru, MinRnnVariant::Log, 4, {in}); },
              kWhat, "input 0: 6 pre-activations are not rows of width 4");
  expectError([&] { runMinRnnCellOnDevice(dev, MinRnnCell::Gru, MinRnnVariant::Log, 0, {in}); },
              kWhat, "expected a width >= 1, got 0");

  // Empty: no tokens, arrays of length 0, as the CPU reference.
  Trace trace, cpu;
  EXPECT_TRUE(runMinRnnOnDevice(dev, model, Sequence{}, &trace).empty());
  model.run(Sequence{}, &cpu);
  expectTracesAgree(trace, cpu, "empty");
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{0, 16}));
  EXPECT_TRUE(runMinRnnOnDevice(dev, model, std::vector<Sequence>{}).empty());
  // A NaN token: its output and every later one non-finite, the earlier ones not, on the
  // sequential walk and the chunked scan.
  Sequence withNan = x;
  withNan[5][0] = std::nan("");
  for (const ScanPath path : {ScanPath::Sequential, ScanPath::Shared}) {
    const Sequence y = runMinRnnOnDevice(dev, model, withNan, nullptr,
                                         {.path = path, .sharedWidth = 4, .stepsPerLane = 2});
    for (size_t n = 0; n < y.size(); ++n) EXPECT_EQ(std::isfinite(y[n][0]), n < 5) << n;
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMinRnn, ModesPickScanPathsAndTheScanIsTimed) {
  LSRL_VULKAN_DEVICE(dev);
  using seed_models::MinRnnMode;
  EXPECT_EQ(minRnnScanOptions(MinRnnMode::Sequential).path, ScanPath::Sequential);
  EXPECT_EQ(minRnnScanOptions(MinRnnMode::Parallel).path, ScanPath::Auto);
  EXPECT_EQ(minRnnScanOptions(MinRnnMode::LogSpace).path, ScanPath::Auto);
  EXPECT_EQ(minRnnScanOptions(MinRnnMode::Sequential, {.path = ScanPath::Shared}).path,
            ScanPath::Shared);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no compute timestamps";
  for (const ScanPath path : {ScanPath::Sequential, ScanPath::Auto}) {
    const double ms = timeMinGruScanMs(dev, 2, 1000, 33, path);
    EXPECT_GT(ms, 0.0) << scanPathName(path);
    std::printf("minGRU scan B=2 T=1000 C=33 %-10s %.3f ms\n", scanPathName(path), ms);
  }
  expectError([&] { timeMinGruScanMs(dev, 0, 10, 4, ScanPath::Auto); }, "timeDiagScan",
              "expected B, T, C >= 1, got B=0 T=10 C=4");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
