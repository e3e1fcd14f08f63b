#include "app/cli/bench_vulkan.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "core/util/error.h"

#ifdef LSRL_HAVE_VULKAN
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/cli/bench_timing.h"
#include "app/cli/timeline_report.h"
#include "app/cli/warn_once.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/float_batch/cpu_runner.h"
#include "core/gpu/copy_kernel.h"
#include "core/gpu/layer_runner.h"
#include "core/gpu/scan_calibration.h"
#include "core/gpu/scan_kernels.h"
#include "core/precision/fit_constants.h"
#include "core/programs/prompts.h"
#include "core/programs/vec2vec.h"
#endif

namespace lsrl::cli {

#ifdef LSRL_HAVE_VULKAN
namespace {

// The UA job's inputs: one sequence per grid query, [query token, prompt tokens...].
struct UaJob {
  float_batch::LayerProgram program;
  Graph path;
  float_batch::SeriesShape shape;
  std::vector<float> tokens;
  std::vector<std::vector<double>> queries;
};

UaJob makeUaJob(const BenchVulkanOptions& o) {
  Vec2vecParams params;
  params.n = 2;
  params.m = 1;
  params.conditional = Conditional::Multiplicative;
  CompileOptions c;
  c.recordHistory = false;  // exact backend, optimised: the defaults
  UaJob job;
  const TargetFunction f = smoothTestFunction(2, 1, 1);
  const ExactSequence prompt = vec2vecPromptTokens(2, 1, o.cells, f);
  Graph program = buildVec2vec(params);
  if (o.fitted) {
    const InputDomain domain{Exact(-3), Exact(3), std::nullopt,
                             static_cast<int>(prompt.size()) + 1};
    program = fitConstants(program, domain, Precision::Fp32).graph;
  }
  job.path = compile(program, c).path;
  job.program = float_batch::layerProgramFromPath(job.path);
  job.shape = {o.grid * o.grid, static_cast<int>(prompt.size()) + 1, job.program.inputWidth};
  std::vector<float> promptFloats;
  for (const ExactVector& v : prompt)
    for (const Exact& e : v) promptFloats.push_back(static_cast<float>(e.toDouble()));
  for (int i = 0; i < o.grid; ++i) {
    for (int j = 0; j < o.grid; ++j) {
      const std::vector<double> x{(i + 0.5) / o.grid, (j + 0.5) / o.grid};
      job.queries.push_back(x);
      for (const Exact& e : vec2vecQueryToken({Exact(x[0]), Exact(x[1])}, 1))
        job.tokens.push_back(static_cast<float>(e.toDouble()));
      job.tokens.insert(job.tokens.end(), promptFloats.begin(), promptFloats.end());
    }
  }
  return job;
}

// The heat map: each sequence's last output.
std::vector<double> lastOutputs(const std::vector<float>& outputs,
                                const float_batch::SeriesShape& s, int width) {
  std::vector<double> out;
  for (int b = 0; b < s.batch; ++b)
    out.push_back(outputs[(static_cast<size_t>(b) * s.steps + s.steps - 1) * width]);
  return out;
}

}  // namespace

int benchVulkan(const BenchVulkanOptions& o, std::ostream& out) {
  auto dev = gpu::Device::open();
  const gpu::DeviceInfo& info = dev->info();
  nlohmann::ordered_json j;
  j["bench"] = "vulkan";
  j["device"] = info.name;
  j["subgroup_size"] = info.subgroupSize;
  out << "device: " << info.name << " (" << info.type << ", subgroup " << info.subgroupSize
      << ")\n";
  if (info.timestampPeriodNs <= 0)
    throw Error("bench vulkan: the device has no compute timestamps");

  // Bandwidths: the same number of bytes for the copy and for the scan (B=4, T=4096, C=1024).
  const float_batch::SeriesShape scanShape{4, 4096, 1024};
  const double scanBytes = gpu::ScanKernels::diagScanBytes(scanShape);
  const size_t copyBytes = static_cast<size_t>(scanBytes / 2) & ~size_t{15};
  const double copyMs = gpu::timeCopy(*dev, copyBytes, o.repeats);
  const double copyGBs = 2.0 * copyBytes / (copyMs * 1e6);
  gpu::ScanKernels scans(*dev);
  gpu::ScanOptions chunked;  // Auto: the path and the schedule this device and shape get
  const gpu::ScanSchedule schedule =
      scans.resolveSchedule(gpu::ScanKernels::timedScanShape(scanShape), chunked);
  // The other schedule of the same path, reported beside it.
  gpu::ScanOptions other = chunked;
  other.schedule = schedule == gpu::ScanSchedule::Chained ? gpu::ScanSchedule::ReduceThenScan
                                                          : gpu::ScanSchedule::Chained;
  gpu::ScanOptions sequential;
  sequential.path = gpu::ScanPath::Sequential;
  // The single pass (decoupled look-back), never the heuristic's choice: only measured.
  gpu::ScanOptions singlePass = chunked;
  singlePass.schedule = gpu::ScanSchedule::SinglePass;
  const double chunkedMs = scans.timeDiagScan(scanShape, chunked, o.repeats);
  const double otherMs = scans.timeDiagScan(scanShape, other, o.repeats);
  const double sequentialMs = scans.timeDiagScan(scanShape, sequential, o.repeats);
  const double singlePassMs = scans.timeDiagScan(scanShape, singlePass, o.repeats);
  const double chunkedGBs = scanBytes / (chunkedMs * 1e6);
  const double otherGBs = scanBytes / (otherMs * 1e6);
  const double sequentialGBs = scanBytes / (sequentialMs * 1e6);
  const double singlePassGBs = scanBytes / (singlePassMs * 1e6);
  const std::string path = gpu::scanPathName(scans.resolve(chunked));
  // A name in a 46-character column, its time and bandwidth (and share of the copy's).
  auto line = [&](const std::string& name, double ms, double gbs, bool share = true) {
    out << name << std::string(name.size() < 46 ? 46 - name.size() : 1, ' ') << fmt("%9.3f ms", ms)
        << fmt("  %7.2f GB/s", gbs);
    if (share) out << fmt("  = %.0f%% of copy", 100 * gbs / copyGBs);
    out << "\n";
  };
  line("copy", copyMs, copyGBs, false);
  line("scan, chunked (" + path + ", " + gpu::scanScheduleName(schedule) + ")", chunkedMs,
       chunkedGBs);
  line("scan, chunked (" + path + ", " + gpu::scanScheduleName(other.schedule) + ")", otherMs,
       otherGBs);
  line("scan, chunked (" + path + ", single-pass)", singlePassMs, singlePassGBs);
  line("scan, sequential per channel", sequentialMs, sequentialGBs);
  // The calibration's choice for this shape (scan_calibration.h): read from the user's
  // cache, or measured now and cached.
  gpu::ScanCalibration calibration(*dev);
  warnOnce(calibration.cacheWarning());
  const gpu::ScanMeasurement& chosen =
      calibration.measure(gpu::ScanKernels::timedScanShape(scanShape));
  const std::string chosenName = chosen.path == gpu::ScanPath::Sequential
                                     ? std::string("sequential")
                                     : std::string(gpu::scanPathName(chosen.path)) + ", " +
                                           gpu::scanScheduleName(chosen.schedule);
  out << "calibrated choice: " << chosenName << " ("
      << (chosen.fromCache ? "cached in " : "measured now, cached in ")
      << calibration.cacheFile().string() << ")\n";
  j["copy_ms"] = copyMs;
  j["copy_gb_per_s"] = copyGBs;
  j["scan_path"] = path;
  j["scan_schedule"] = gpu::scanScheduleName(schedule);
  j["scan_ms"] = chunkedMs;
  j["scan_gb_per_s"] = chunkedGBs;
  j["scan_over_copy"] = chunkedGBs / copyGBs;
  j["other_schedule"] = gpu::scanScheduleName(other.schedule);
  j["other_schedule_ms"] = otherMs;
  j["other_schedule_over_copy"] = otherGBs / copyGBs;
  j["sequential_scan_ms"] = sequentialMs;
  j["sequential_scan_gb_per_s"] = sequentialGBs;
  j["sequential_over_copy"] = sequentialGBs / copyGBs;
  j["single_pass_scan_ms"] = singlePassMs;
  j["single_pass_scan_over_copy"] = singlePassGBs / copyGBs;
  j["best_scan_over_copy"] =
      std::max({chunkedGBs, otherGBs, sequentialGBs, singlePassGBs}) / copyGBs;
  j["calibrated_scan"] = chosenName;
  j["calibration_from_cache"] = chosen.fromCache;
  j["calibration_ms"] = {{"sequential", chosen.sequentialMs},
                         {"chained", chosen.chainedMs},
                         {"reduce_then_scan", chosen.reduceThenScanMs},
                         {"single_pass", chosen.singlePassMs}};

  if (o.uaJob) {
    const UaJob job = makeUaJob(o);
    out << "UA job: vec2vec n=2 m=1 multiplicative (exact compile, optimised, fp32"
        << (o.fitted ? ", constants fitted" : "") << "), N=" << o.cells << " ("
        << job.shape.steps - 1 << "-token prompt), " << o.grid << "x" << o.grid
        << " queries = " << job.shape.batch << " sequences\n";
    std::vector<float> cpu, gpuOut;
    const double cpuMs = medianMs(
        o.repeats, [&] { cpu = float_batch::runLayersCpu(job.program, job.shape, job.tokens); });
    gpu::LayerRunner runner(*dev, job.program);
    gpu::LayerRunOptions runOptions;
    runOptions.calibration = &calibration;
    // Wall time untimed (a run records no timestamps), then one run under a timeline: its
    // dispatches, barriers, submissions, host phases, and the GPU's busy time and span.
    runner.run(job.shape, job.tokens, runOptions);  // makes the resident tiles
    const gpu::DeviceCounters before = dev->counters();
    const double gpuMs =
        medianMs(o.repeats, [&] { gpuOut = runner.run(job.shape, job.tokens, runOptions); });
    const gpu::DeviceCounters after = dev->counters();
    gpu::LayerRunTiming timing;
    dev->openTimeline();
    runner.run(job.shape, job.tokens, runOptions, &timing);
    const gpu::Timeline timeline = dev->closeTimeline();
    const double hostMs = std::max(0.0, gpuMs - timing.kernelMs);
    // The job in the other mode (layer by layer where the default fuses the path, fused
    // where it does not), once under a timeline: the dispatches and time fusion saves or
    // costs. On a CPU driver the fused run takes minutes (path_fusion.h), so there only
    // with --compare-fusion.
    const bool compare = gpu::fusesByDefault(info) || o.compareFusion;
    gpu::LayerRunOptions other = runOptions;
    other.fusion = timing.fused ? gpu::PathFusion::Off : gpu::PathFusion::On;
    std::vector<float> otherOut;
    gpu::LayerRunTiming otherTiming;
    gpu::Timeline otherTimeline;
    if (compare) {
      if (gpu::fusesByDefault(info)) runner.run(job.shape, job.tokens, other);  // warm-up
      dev->openTimeline();
      otherOut = runner.run(job.shape, job.tokens, other, &otherTiming);
      otherTimeline = dev->closeTimeline();
    }
    // Layer by layer without the calibration: the scans' built-in heuristic (ScanSchedule::Auto).
    gpu::LayerRunner heuristicRunner(*dev, job.program);
    gpu::LayerRunOptions heuristic;
    heuristic.fusion = gpu::PathFusion::Off;
    const double heuristicMs =
        medianMs(o.repeats, [&] { heuristicRunner.run(job.shape, job.tokens, heuristic); });
    const std::vector<double> cpuMap = lastOutputs(cpu, job.shape, job.program.outputWidth);
    const std::vector<double> gpuMap = lastOutputs(gpuOut, job.shape, job.program.outputWidth);
    // The float64 CPU heat map (the plan executor on the same compiled path).
    std::vector<double> f64Map;
    Executor<double> ex(job.path);
    const size_t perSeq = static_cast<size_t>(job.shape.steps) * job.shape.channels;
    for (int b = 0; b < job.shape.batch; ++b) {
      FloatSequence xs;
      for (int t = 0; t < job.shape.steps; ++t) {
        const float* row =
            job.tokens.data() + perSeq * b + static_cast<size_t>(t) * job.shape.channels;
        xs.emplace_back(row, row + job.shape.channels);
      }
      f64Map.push_back(ex.run(xs).back().at(0));
    }
    double agree = 0, cpuErr = 0, gpuErr = 0;
    for (size_t i = 0; i < cpuMap.size(); ++i) {
      agree = std::max(agree, std::fabs(gpuMap[i] - cpuMap[i]) / (1 + std::fabs(cpuMap[i])));
      cpuErr = std::max(cpuErr, std::fabs(cpuMap[i] - f64Map[i]));
      gpuErr = std::max(gpuErr, std::fabs(gpuMap[i] - f64Map[i]));
    }
    const double tokens = static_cast<double>(job.shape.batch) * job.shape.steps;
    out << "  cpu fp32   " << fmt("%9.1f ms", cpuMs)
        << fmt("  %8.2f M tokens/s", tokens / (cpuMs * 1e3)) << "\n"
        << "  vulkan     " << fmt("%9.1f ms", gpuMs)
        << fmt("  %8.2f M tokens/s", tokens / (gpuMs * 1e3))
        << fmt("  (kernels %.1f ms", timing.kernelMs) << fmt(", host %.1f ms, ", hostMs)
        << timing.tiles << " tiles, " << timing.slots << " in flight, "
        << (after.buffers - before.buffers) << " buffers created after the first run)\n"
        << "  vulkan, layer by layer, heuristic scan schedule (no calibration) "
        << fmt("%.1f ms", heuristicMs) << "\n";
    const std::string mode = timing.fused ? "fused path" : "layer by layer";
    const std::string otherMode = timing.fused ? "layer by layer" : "fused path";
    printTimeline(out, timeline, timing.wallMs, "vulkan timeline (" + mode + ", the default)");
    if (compare)
      printTimeline(out, otherTimeline, otherTiming.wallMs, "vulkan timeline (" + otherMode + ")");
    else
      out << "  vulkan " << otherMode << ": not run on a CPU driver (--compare-fusion runs it)\n";
    out << "  vulkan vs cpu fp32: max |diff|/(1+|cpu|) = " << fmt("%.2e", agree) << "\n"
        << "  max |error| vs float64: cpu fp32 " << fmt("%.3g", cpuErr) << ", vulkan "
        << fmt("%.3g", gpuErr) << "\n";
    j["ua_constants_fitted"] = o.fitted;
    j["ua_sequences"] = job.shape.batch;
    j["ua_tokens_per_sequence"] = job.shape.steps;
    j["ua_cpu_fp32_ms"] = cpuMs;
    j["ua_vulkan_ms"] = gpuMs;
    j["ua_vulkan_kernel_ms"] = timing.kernelMs;
    j["ua_vulkan_host_ms"] = hostMs;
    j["ua_vulkan_heuristic_schedule_ms"] = heuristicMs;
    j["ua_vulkan_tiles"] = timing.tiles;
    j["ua_vulkan_buffers_created_after_first_run"] = after.buffers - before.buffers;
    j["ua_vulkan_over_cpu_speedup"] = cpuMs / gpuMs;
    // The timeline of one run (timeline_report.h), and the other mode's beside it.
    j["ua_vulkan_fused"] = timing.fused;
    const nlohmann::ordered_json tl = timelineJson(timeline, timing.wallMs);
    j["ua_vulkan_dispatches"] = tl["dispatches"];
    j["ua_vulkan_barriers"] = tl["barriers"];
    j["ua_vulkan_submissions"] = tl["submissions"];
    j["ua_vulkan_gpu_busy_ms"] = tl["gpu_busy_ms"];
    j["ua_vulkan_gpu_span_ms"] = tl["gpu_span_ms"];
    j["ua_vulkan_gpu_idle_share"] = tl["gpu_idle_share"];
    j["ua_vulkan_host_phases_ms"] = tl["host_phases_ms"];
    j["ua_vulkan_timeline_wall_ms"] = timing.wallMs;
    j["ua_vulkan_other_mode"] = otherMode;
    if (compare) {
      j["ua_vulkan_other_ms"] = otherTiming.wallMs;
      j["ua_vulkan_other_timeline"] = timelineJson(otherTimeline, otherTiming.wallMs);
      double worst = 0;
      for (size_t i = 0; i < gpuOut.size() && i < otherOut.size(); ++i)
        worst = std::max(worst, std::fabs(double(gpuOut[i]) - otherOut[i]) /
                                    (1 + std::fabs(double(otherOut[i]))));
      j["ua_vulkan_other_vs_default_max_rel_diff"] = worst;
    }
    j["ua_vulkan_vs_cpu_max_rel_diff"] = agree;
    j["ua_cpu_fp32_max_error_vs_float64"] = cpuErr;
    j["ua_vulkan_max_error_vs_float64"] = gpuErr;
  }
  out << j.dump() << "\n";
  return 0;
}

#else

int benchVulkan(const BenchVulkanOptions&, std::ostream&) {
  throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF)");
}

#endif

}  // namespace lsrl::cli
