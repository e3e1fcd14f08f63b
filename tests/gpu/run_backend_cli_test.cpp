// `lsrl run --backend cpu32 | vulkan`: a compiled model in fp32 batch on the CPU runner
// and on the Vulkan device give the same outputs; `lsrl model` on both backends; misuse is
// refused with the reason.
// (Without a device the command fails with it: VulkanDevice.WithoutADriverTheCliSaysWhyAndFails
// covers the fresh-process case.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/numbers/exact.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

class RunBackends : public CliFixture {};

TEST_F(RunBackends, Fp32OnCpuAndVulkanAgree) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "--set", "conditional=multiplicative", "-o",
                  path("p.json")})
                .code,
            0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "5", "--seed", "3", "-o", path("in.json")}).code,
            0);
  const Result cpu =
      lsrl({"run", path("m.json"), "--input", path("in.json"), "--backend", "cpu32"});
  const Result gpu =
      lsrl({"run", path("m.json"), "--input", path("in.json"), "--backend", "vulkan"});
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  ASSERT_EQ(gpu.code, 0) << gpu.err;
  const auto a = nlohmann::json::parse(cpu.out), b = nlohmann::json::parse(gpu.out);
  EXPECT_EQ(a["backend"], "cpu32");
  EXPECT_EQ(b["backend"], "vulkan");
  ASSERT_EQ(a["outputs"].size(), b["outputs"].size());
  ASSERT_EQ(a["outputs"].size(), 33u);  // the 3-token query, then 5 entries of 6 tokens
  for (size_t t = 0; t < a["outputs"].size(); ++t) {
    const double x = a["outputs"][t][0], y = b["outputs"][t][0];
    EXPECT_LE(std::fabs(x - y), 1e-5 * (1 + std::fabs(x))) << "token " << t;
  }
}

// Weights fitted by --precision fp32 (docs/precision.md) answer right on the device:
// tok2tok's expected tokens (every variant), vec2vec within 1e-3 of the exact model
// (queries 1/100 from the cell walls), as on the fp32 CPU runner.
TEST_F(RunBackends, FittedWeightsAnswerRightOnTheDevice) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  auto lastOutputs = [&](const std::string& model, const std::string& input,
                         const std::string& backend) {
    const Result r = lsrl({"run", model, "--input", input, "--backend", backend});
    EXPECT_EQ(r.code, 0) << backend << ": " << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out)["outputs"] : nlohmann::json::array();
  };
  ASSERT_EQ(
      lsrl({"prompt", "tok2tok", "--random", "25", "--seed", "4", "-o", path("t.in.json")}).code,
      0);
  std::ifstream promptFile(path("t.in.json"));
  const nlohmann::json expected = nlohmann::json::parse(promptFile)["expected"];
  for (const std::string variant :
       {"direct", "optimized", "step_optimized", "multiplicative", "multiplicative_optimized"}) {
    SCOPED_TRACE(variant);
    const Result c = fp32Tok2tok(variant, path("t.json"), path("t.model.json"));
    ASSERT_EQ(c.code, 0) << c.err;
    const nlohmann::json rows = lastOutputs(path("t.model.json"), path("t.in.json"), "vulkan");
    ASSERT_EQ(rows.size(), 153u);  // T = 3·(2·25 + 1)
    for (size_t k = 0; k < 3; ++k)
      EXPECT_NEAR(rows[150 + k][0].get<double>(), expected[k].get<double>(), 1e-3) << k;
  }
  ASSERT_EQ(lsrl({"program", "vec2vec", "-o", path("v.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("v.json"), "--precision", "fp32", "--box", "-3,3", "--horizon",
                  "100", "-o", path("v.model.json")})
                .code,
            0);
  for (int seed = 0; seed < 4; ++seed) {
    const std::string in = path("v" + std::to_string(seed) + ".json");
    ASSERT_EQ(lsrl({"prompt", "vec2vec", "-N", "8", "--mu", "100", "--seed", std::to_string(seed),
                    "-o", in})
                  .code,
              0);
    const Result exact = lsrl({"run", path("v.model.json"), "--input", in, "--exact"});
    ASSERT_EQ(exact.code, 0) << exact.err;
    const nlohmann::json want = nlohmann::json::parse(exact.out)["outputs"].back()[0];
    const double reference =
        want.is_number() ? want.get<double>() : Exact::parse(want.get<std::string>()).toDouble();
    for (const std::string backend : {"cpu32", "vulkan"}) {
      const nlohmann::json rows = lastOutputs(path("v.model.json"), in, backend);
      ASSERT_FALSE(rows.empty());
      EXPECT_NEAR(rows.back()[0].get<double>(), reference, 1e-3) << backend << " seed " << seed;
    }
  }
}

// A target architecture's weights (lsrl export --target): float64 through core/targets's
// forward pass, fp32 on the CPU runner and on the device, all three close.
TEST_F(RunBackends, TargetWeightsRunOnEveryBackend) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("p.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  write("in.json", R"({"batch": [{"tokens": [[1], [0], [1], [1]]}, {"tokens": [[0], [0]]}]})");
  const std::vector<std::pair<std::string, std::vector<std::string>>> targets = {
      {"gated-rnn", {}},
      {"gru", {"--box", "0,1", "--horizon", "8"}},
      {"lstm", {}},
      {"hawk", {"--horizon", "8"}}};
  for (const auto& [target, options] : targets) {
    SCOPED_TRACE(target);
    const std::string weights = path(target + ".safetensors");
    std::vector<std::string> args = {"export",   path("m.json"), "--format", "safetensors",
                                     "--target", target,         "-o",       weights};
    args.insert(args.end(), options.begin(), options.end());
    const Result exported = lsrl(args);
    ASSERT_EQ(exported.code, 0) << exported.err;
    std::vector<nlohmann::json> runs;
    for (const std::string backend : {"float64", "cpu32", "vulkan"}) {
      const Result r = lsrl({"run", weights, "--input", path("in.json"), "--backend", backend});
      ASSERT_EQ(r.code, 0) << backend << ": " << r.err;
      runs.push_back(nlohmann::json::parse(r.out)["batch_outputs"]);
    }
    ASSERT_EQ(runs[0].size(), 2u);
    for (size_t b = 0; b < 2; ++b) {
      ASSERT_EQ(runs[0][b].size(), b == 0 ? 4u : 2u);
      for (size_t t = 0; t < runs[0][b].size(); ++t) {
        const double want = runs[0][b][t][0];
        for (size_t k = 1; k < runs.size(); ++k) {
          const double got = runs[k][b][t][0];
          EXPECT_LE(std::fabs(got - want), 1e-4 * (1 + std::fabs(want)))
              << "sequence " << b << " token " << t << " backend " << k;
        }
      }
    }
  }
  const Result exact =
      lsrl({"run", path("lstm.safetensors"), "--input", path("in.json"), "--exact"});
  EXPECT_EQ(exact.code, 1);
  EXPECT_NE(exact.err.find("--backend exact needs the compiled model"), std::string::npos)
      << exact.err;
}

// Every seed model from the command line on both backends, on its default task: the same
// outputs and the same trace arrays (names, shapes, values) within the fp32 rule
// |vulkan − cpu| ≤ 1e-5·(1 + |cpu|) (the per-model device tests check the same more closely).
TEST_F(RunBackends, EverySeedModelTracesAlikeOnCpuAndVulkan) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  for (const std::string kind : {"gateloop", "lattice", "looped", "mingru", "minlstm"}) {
    SCOPED_TRACE(kind);
    std::map<std::string, nlohmann::json> runs, traces;
    for (const std::string backend : {"cpu", "vulkan"}) {
      const std::string trace = path(kind + "." + backend + ".json");
      const Result r = lsrl({"model", "run", kind, "--backend", backend, "--trace", trace});
      ASSERT_EQ(r.code, 0) << backend << ": " << r.err;
      runs[backend] = nlohmann::json::parse(r.out);
      std::ifstream in(trace);
      traces[backend] = nlohmann::json::parse(in);
    }
    EXPECT_EQ(runs["vulkan"]["backend"], "vulkan");
    EXPECT_EQ(runs["vulkan"]["task"], runs["cpu"]["task"]);
    auto expectClose = [](const nlohmann::json& gpu, const nlohmann::json& cpu,
                          const std::string& what) {
      ASSERT_EQ(gpu.size(), cpu.size()) << what;
      for (size_t i = 0; i < cpu.size(); ++i) {
        if (cpu[i].is_null()) continue;  // NaN / Inf in JSON: compared by the device tests
        ASSERT_FALSE(gpu[i].is_null()) << what << "[" << i << "]";
        const double c = cpu[i], g = gpu[i];
        ASSERT_LE(std::fabs(g - c), 1e-5 * (1 + std::fabs(c))) << what << "[" << i << "]";
      }
    };
    const auto& cpuOut = runs["cpu"]["outputs"];
    const auto& gpuOut = runs["vulkan"]["outputs"];
    ASSERT_EQ(gpuOut.size(), cpuOut.size());
    for (size_t t = 0; t < cpuOut.size(); ++t)
      expectClose(gpuOut[t], cpuOut[t], "output " + std::to_string(t));
    const auto& cpuArrays = traces["cpu"]["arrays"];
    const auto& gpuArrays = traces["vulkan"]["arrays"];
    for (const auto& [name, array] : cpuArrays.items()) {
      ASSERT_TRUE(gpuArrays.contains(name)) << name;
      EXPECT_EQ(gpuArrays[name]["shape"], array["shape"]) << name;
      // mode_difference compares the CPU's own modes with each other: not a device value.
      if (name.find("mode_difference") == std::string::npos)
        expectClose(gpuArrays[name]["data"], array["data"], name);
    }
  }
}

// `lsrl model eval --backend vulkan` scores the CPU's samples in batches on one device: the
// same targets, the right count within a few tokens (fp32 rounding flips an argmax only at a
// near tie), the same count whatever --batch, and the batch and speed in the output.
TEST_F(RunBackends, ModelEvalScoresInBatchesOnTheDevice) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  const Result cpu = lsrl({"model", "eval", "mingru", "--samples", "200"});
  const Result gpu = lsrl({"model", "eval", "mingru", "--backend", "vulkan", "--samples", "200"});
  const Result seven =
      lsrl({"model", "eval", "mingru", "--backend", "vulkan", "--samples", "200", "--batch", "7"});
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  ASSERT_EQ(gpu.code, 0) << gpu.err;
  ASSERT_EQ(seven.code, 0) << seven.err;
  const auto a = nlohmann::json::parse(cpu.out), b = nlohmann::json::parse(gpu.out),
             c = nlohmann::json::parse(seven.out);
  std::vector<std::string> keys;
  for (const auto& [key, value] : b.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"accuracy", "backend", "batch", "loss", "model",
                                            "perplexity", "right", "samples", "samples_per_s",
                                            "seed", "targets", "task", "wall_s"}));
  EXPECT_EQ(b["model"], "mingru");
  EXPECT_EQ(b["task"], "selective_copy");
  EXPECT_EQ(b["backend"], "vulkan");
  EXPECT_EQ(b["samples"], 200);
  EXPECT_EQ(b["batch"], 256);  // the default
  EXPECT_EQ(c["batch"], 7);
  EXPECT_FALSE(a.contains("batch"));
  EXPECT_EQ(b["targets"], 800);  // 4 data tokens each
  EXPECT_EQ(b["targets"], a["targets"]);
  EXPECT_LE(std::abs(b["right"].get<int>() - a["right"].get<int>()), 2);
  EXPECT_EQ(c["right"], b["right"]);
  EXPECT_DOUBLE_EQ(b["accuracy"].get<double>(), b["right"].get<double>() / 800);
  // The mean cross-entropy of fp32 logits, near the float64 one.
  EXPECT_NEAR(b["loss"].get<double>(), a["loss"].get<double>(), 1e-3 * a["loss"].get<double>());
  EXPECT_NEAR(c["loss"].get<double>(), b["loss"].get<double>(), 1e-6 * b["loss"].get<double>());
  EXPECT_GT(b["samples_per_s"].get<double>(), 0);
  EXPECT_NEAR(b["samples_per_s"].get<double>() * b["wall_s"].get<double>(), 200, 1e-6);

  // --profile: the timeline as text before the JSON line, and as "profile" in it.
  const Result profiled =
      lsrl({"model", "eval", "mingru", "--backend", "vulkan", "--samples", "20", "--profile"});
  ASSERT_EQ(profiled.code, 0) << profiled.err;
  EXPECT_NE(profiled.out.find("vulkan timeline: "), std::string::npos) << profiled.out;
  const std::string last =
      profiled.out.substr(profiled.out.rfind('\n', profiled.out.size() - 2) + 1);
  const auto p = nlohmann::json::parse(last).at("profile");
  for (const char* key : {"dispatches", "barriers", "copies", "submissions", "host_phases_ms",
                          "host_ms", "gpu_busy_ms", "gpu_span_ms", "gpu_idle_share", "wall_ms",
                          "device_open_ms", "host_other_ms"})
    EXPECT_TRUE(p.contains(key)) << key << " in " << p.dump();
  EXPECT_GT(p["dispatches"].get<int>(), 0);
  EXPECT_GT(p["submissions"].get<int>(), 0);
  for (const char* phase : {"pack", "record", "submit", "wait", "unpack"})
    EXPECT_GE(p["host_phases_ms"][phase].get<double>(), 0) << phase;
}

TEST_F(RunBackends, MisuseIsRefusedWithTheReason) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("p.json")}).code, 0);
  write("in.json", R"({"tokens": [[1], [0], [1]]})");
  Result r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "cpu32"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not a path (compile it first)"), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "fp16"});
  EXPECT_NE(r.err.find("unknown --backend \"fp16\""), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "cpu32", "--trace",
            path("t.json")});
  EXPECT_NE(r.err.find("--trace needs"), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "vulkan", "--exact"});
  EXPECT_NE(r.err.find("--exact contradicts"), std::string::npos) << r.err;
}

// The benches report what the device work costs apart: `bench vulkan` the UA job's kernel
// and host time, the buffers created after its first run (0: resident tiles) and the
// calibrated scan choice, cached in LSRL_CACHE_DIR; `bench precision --vulkan` each row's
// wrong answers and time in fp32 and fp64 on the device.
TEST_F(RunBackends, BenchesReportHostKernelCalibrationAndFp64) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps on " << dev.info().name;
  const std::string cache = path("cache");
  const char* outer = std::getenv("LSRL_CACHE_DIR");
  const std::string saved = outer != nullptr ? outer : "";
  ::setenv("LSRL_CACHE_DIR", cache.c_str(), 1);
  const Result bench = lsrl({"bench", "vulkan", "--repeats", "1", "--grid", "4"});
  if (outer != nullptr) {
    ::setenv("LSRL_CACHE_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("LSRL_CACHE_DIR");
  }
  ASSERT_EQ(bench.code, 0) << bench.err;
  const auto j = nlohmann::json::parse(bench.out.substr(bench.out.rfind("\n{") + 1));
  for (const char* key : {"ua_vulkan_ms", "ua_vulkan_kernel_ms", "ua_vulkan_host_ms",
                          "ua_vulkan_heuristic_schedule_ms", "best_scan_over_copy"})
    EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key;
  EXPECT_EQ(j["ua_vulkan_buffers_created_after_first_run"], 0);
  EXPECT_FALSE(j["calibration_from_cache"].get<bool>());
  EXPECT_NE(bench.out.find("host "), std::string::npos) << bench.out;
  EXPECT_TRUE(std::ifstream(cache + "/scan-schedules.json").good());

  const Result precision = lsrl({"bench", "precision", "--programs", "more_ones", "--cases", "4",
                                 "--vulkan", "--json", path("p.json")});
  ASSERT_EQ(precision.code, 0) << precision.err;
  const auto rows = nlohmann::json::parse(std::ifstream(path("p.json")))["rows"];
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["vulkan_wrong"], 0) << row.dump();
    EXPECT_TRUE(row["vulkan_ms"].is_number()) << row.dump();
    if (dev.info().shaderFloat64) {
      EXPECT_EQ(row["vulkan_fp64_wrong"], 0) << row.dump();
      EXPECT_TRUE(row["vulkan_fp64_ms"].is_number()) << row.dump();
    }
  }
}

}  // namespace
}  // namespace lsrl::cli::test
