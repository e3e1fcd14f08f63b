#include "app/cli/bench_precision.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>

#include "app/cli/fp32_backends.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/float_batch/layer_program.h"
#include "core/precision/certificate.h"
#include "core/precision/fit_constants.h"
#include "core/programs/program_registry.h"
#include "core/programs/prompts.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/gpu/device.h"
#include "core/numbers/exact_field.h"
#endif

namespace lsrl::cli {

namespace {

// One program instance and its test inputs with what each must answer.
struct Workload {
  std::string label;  // "tok2tok L=3 direct"
  std::string program;
  std::map<std::string, std::string> params;
  InputDomain domain;
  std::vector<ExactSequence> inputs;
  // tok2tok: the expected tokens of the last rows; more_ones / vec2vec: none (the exact
  // model's output is the reference).
  std::vector<std::vector<int>> expected;
  bool continuous = false;  // vec2vec: compare within 1e-3, not by rounding
};

Workload tok2tok(int L, const std::string& variant, const BenchPrecisionOptions& o) {
  Workload w;
  w.label = "tok2tok L=" + std::to_string(L) + " " + variant;
  w.program = "tok2tok";
  w.params = {{"L", std::to_string(L)}, {"conditional", variant}};
  w.domain = {Exact(0), Exact(9), mpq_class(1), o.horizon};
  const int mostEntries = std::max(1, (o.horizon / L - 1) / 2);  // T = L(2K + 1) ≤ horizon
  std::mt19937_64 rng(o.seed);
  for (int i = 0; i < o.cases; ++i) {
    const int K = uniformInt(rng, 1, mostEntries);
    const Tok2tokCase c =
        randomDictionary(K, L, 10, o.seed * 1'000'003ULL + static_cast<uint64_t>(i));
    w.inputs.push_back(tok2tokInput(c.dictionary, c.query, L, 10));
    w.expected.push_back(tok2tokExpected(c.dictionary, c.query, L, 10));
  }
  return w;
}

Workload vec2vec(const std::string& variant, const BenchPrecisionOptions& o) {
  const int n = 2, m = 1, N = 8;
  Workload w;
  w.label = "vec2vec n=2 N=8 " + variant;
  w.program = "vec2vec";
  w.params = {{"n", "2"}, {"m", "1"}, {"conditional", variant}};
  w.domain = {Exact(-3), Exact(3), std::nullopt, o.horizon};
  w.continuous = true;
  std::mt19937_64 rng(o.seed);
  for (int i = 0; i < o.cases; ++i) {
    const TargetFunction f = smoothTestFunction(n, m, o.seed + static_cast<uint64_t>(i));
    const std::vector<double> x = randomValidQuery(n, N, Exact(100), rng);  // ≥ 0.01 from walls
    w.inputs.push_back(vec2vecInput(x, n, m, N, f));
  }
  return w;
}

Workload moreOnes(const BenchPrecisionOptions& o) {
  Workload w;
  w.label = "more_ones";
  w.program = "more_ones";
  w.domain = {Exact(0), Exact(1), mpq_class(1), o.horizon};
  std::mt19937_64 rng(o.seed);
  for (int i = 0; i < o.cases; ++i) {
    ExactSequence s;
    const int T = uniformInt(rng, 1, o.horizon);
    for (int t = 0; t < T; ++t) s.push_back({Exact(uniformInt(rng, 0, 1))});
    w.inputs.push_back(std::move(s));
  }
  return w;
}

using Outputs = std::vector<std::vector<std::vector<double>>>;

Outputs asDoubles(const std::vector<ExactSequence>& exact) {
  Outputs out;
  for (const ExactSequence& s : exact) {
    std::vector<std::vector<double>> rows;
    for (const ExactVector& r : s) {
      std::vector<double> row;
      for (const Exact& v : r) row.push_back(v.toDouble());
      rows.push_back(std::move(row));
    }
    out.push_back(std::move(rows));
  }
  return out;
}

struct Score {
  int wrong = 0;
  double maxError = 0;  // against the expected answer (tok2tok) or the exact model
};

// How many inputs get a wrong answer: tok2tok's last L outputs against the expected
// tokens, the others against the exact model's outputs (vec2vec: its last output).
Score score(const Workload& w, const Outputs& got, const Outputs& exact) {
  Score s;
  for (size_t i = 0; i < got.size(); ++i) {
    bool wrong = false;
    const auto& rows = got[i];
    if (!w.expected.empty()) {
      const auto& want = w.expected[i];
      for (size_t k = 0; k < want.size(); ++k) {
        const double v = rows[rows.size() - want.size() + k][0];
        s.maxError = std::max(s.maxError, std::abs(v - want[k]));
        wrong = wrong || !(std::abs(v - want[k]) < 0.5);
      }
    } else {
      const size_t first = w.continuous ? rows.size() - 1 : 0;
      for (size_t t = first; t < rows.size(); ++t) {
        for (size_t k = 0; k < rows[t].size(); ++k) {
          const double e = std::abs(rows[t][k] - exact[i][t][k]);
          s.maxError = std::max(s.maxError, e);
          wrong = wrong || !(e <= (w.continuous ? 1e-3 : 0.5 - 1e-9));
        }
      }
    }
    s.wrong += wrong ? 1 : 0;
  }
  return s;
}

nlohmann::ordered_json runRow(const Workload& w, const std::string& compileName,
                              const BenchPrecisionOptions& o, std::ostream& out) {
  Graph program = buildProgram(w.program, w.params);
  nlohmann::ordered_json row;
  row["case"] = w.label;
  row["compile"] = compileName;
  int changes = 0;
  DomainAnalysis analysis;
  if (compileName != "as_built") {
    ConstantFit fit = fitConstants(program, w.domain, parsePrecision(compileName));
    changes = static_cast<int>(fit.changes.size());
    row["assumes"] = fit.assumptions.size();
    program = std::move(fit.graph);
    analysis = std::move(fit.analysis);
  } else {
    analysis = analyseDomain(program, w.domain);
  }
  row["constants_fitted"] = changes;
  // The margin certificate of what is compiled, in both formats (a worst case: "no" is not
  // a wrong answer, docs/precision.md).
  std::string certified;
  for (const Precision format : {Precision::Float64, Precision::Fp32}) {
    const bool safe = certifyPrecision(program, analysis, w.domain, format).safe;
    row["certified_" + std::string(precisionName(format))] = safe;
    certified += safe ? " yes" : " no";
  }
  CompileOptions copts;
  copts.backend = Backend::Exact;
  const CompileResult compiled = compile(program, copts);
  const GraphSize size = graphSize(compiled.path);
  row["layers"] = size.layers;
  row["state_dim"] = size.stateDim;
  row["nonzero_params"] = size.nonZeroParams;
  row["cases"] = w.inputs.size();

  const ExactExecutor exactRunner(compiled.path);
  const Outputs exact = asDoubles(runBatch<Exact>(exactRunner.sharedPlan(), w.inputs));
  std::vector<FloatSequence> floatInputs;
  for (const ExactSequence& s : w.inputs) floatInputs.push_back(floatTokens(s));
  const FloatExecutor floatRunner(compiled.path);
  const Outputs f64 = runBatch<double>(floatRunner.sharedPlan(), floatInputs);
  const float_batch::LayerProgram layers = float_batch::layerProgramFromPath(compiled.path);
  const Outputs f32 = runFp32(layers, w.inputs, Fp32Backend::Cpu);

  auto put = [&](const char* name, const Score& s) {
    row[std::string(name) + "_wrong"] = s.wrong;
    row[std::string(name) + "_max_error"] = s.maxError;
  };
  const Score exactScore = w.expected.empty() ? Score{} : score(w, exact, exact);
  put("exact", exactScore);
  put("float64", score(w, f64, exact));
  put("fp32", score(w, f32, exact));
  // On the device: fp32 and, where the device has shaderFloat64, fp64, each timed (wall
  // time of the whole batch through the resident runner, pipelines already made by a
  // first run).
  std::string vulkanText;
  auto onDevice = [&](const std::string& name, const auto& run) {
    try {
      run();  // creates the pipelines and the calibration's choices
      const auto start = std::chrono::steady_clock::now();
      const Score s = score(w, run(), exact);
      row[name + "_ms"] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      put(name.c_str(), s);
      vulkanText += (vulkanText.empty() ? "" : " / ") + std::to_string(s.wrong);
    } catch (const std::exception& e) {
      row[name + "_wrong"] = nullptr;
      row[name + "_error"] = e.what();
      vulkanText += (vulkanText.empty() ? "" : " / ") + std::string("n/a");
    }
  };
  if (o.vulkan) {
    onDevice("vulkan", [&] { return runFp32(layers, w.inputs, Fp32Backend::Vulkan, o.device); });
    onDevice("vulkan_fp64", [&] {
      return runVulkanFp64(float_batch::layerProgramFromPath<double>(compiled.path), w.inputs,
                           o.device);
    });
  }
  char line[256];
  const int n = static_cast<int>(w.inputs.size());
  std::snprintf(line, sizeof line, "%-36s %-8s %4d %6lld %8lld %5d/%-4d %5d/%-4d %5d/%-4d",
                w.label.c_str(), compileName.c_str(), size.layers, size.stateDim,
                size.nonZeroParams, exactScore.wrong, n, row["float64_wrong"].get<int>(), n,
                row["fp32_wrong"].get<int>(), n);
  out << line;
  if (o.vulkan) out << "  " << vulkanText;
  out << "   max err f64 " << row["float64_max_error"].get<double>() << ", fp32 "
      << row["fp32_max_error"].get<double>() << "; certified f64/fp32" << certified << "\n";
  out.flush();
  return row;
}

}  // namespace

int benchPrecision(const BenchPrecisionOptions& options, std::ostream& out) {
  BenchPrecisionOptions o = options;
#ifdef LSRL_HAVE_VULKAN
  // One device for every row (without one, each row records why).
  std::unique_ptr<gpu::Device> opened;
  if (o.vulkan && o.device == nullptr) {
    try {
      opened = gpu::Device::open();
      o.device = opened.get();
    } catch (const gpu::VulkanUnavailable&) {
    }
  }
#endif
  std::vector<Workload> workloads;
  for (const std::string& p : o.programs) {
    if (p == "tok2tok") {
      for (int L : o.lengths)
        for (const std::string& v : o.variants) workloads.push_back(tok2tok(L, v, o));
    } else if (p == "vec2vec") {
      for (const std::string& v : o.variants) workloads.push_back(vec2vec(v, o));
    } else if (p == "more_ones") {
      workloads.push_back(moreOnes(o));
    } else {
      throw Error("--programs: unknown program \"" + p + "\" (tok2tok, vec2vec, more_ones)");
    }
  }
  out << "case                                 compile  layers state nonzeros  exact      float64  "
         "  fp32"
      << (o.vulkan ? "       vulkan fp32 / fp64" : "") << "\n";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Workload& w : workloads) {
    for (const char* c : {"as_built", "float64", "fp32"}) rows.push_back(runRow(w, c, o, out));
  }
  nlohmann::ordered_json result;
  result["benchmark"] = "precision";
  result["cases_per_row"] = o.cases;
  result["horizon"] = o.horizon;
  result["seed"] = o.seed;
  result["rows"] = std::move(rows);
  const std::string text = result.dump();
  if (!o.jsonPath.empty()) writeFileAtomically(o.jsonPath, text + "\n");
  out << text << "\n";
  return 0;
}

}  // namespace lsrl::cli
