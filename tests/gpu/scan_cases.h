// The diagonal-scan cases the Vulkan scan tests share (fp32 in scan_test.cpp, fp64 in
// scan_f64_test.cpp): every path this device can run under both schedules, and random
// shapes (T = 1, T not a multiple of the chunk, B = 1, odd C, T = 4096, |a| above 1); and
// the scan paths the seed models' scan operators (GateLoop, minGRU/minLSTM) are run with.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/float_batch/layouts.h"
#include "core/gpu/scan_kernels.h"

namespace lsrl::testing_vulkan {

struct PathCase {
  gpu::ScanOptions options;
  std::string name;
};

// Every path this device can run: the subgroup one where it has subgroups, the shared one
// at widths 4, 16, 32, 64 (and 8 lanes of one step, 16 lanes of single channels), each
// under the three schedules, and the sequential baseline.
inline std::vector<PathCase> pathsOf(const gpu::Device& dev) {
  using gpu::ScanPath;
  using gpu::ScanSchedule;
  std::vector<PathCase> chunked;
  if (dev.info().subgroupArithmetic) chunked.push_back({{.path = ScanPath::Subgroup}, "subgroup"});
  for (uint32_t width : {4u, 16u, 32u, 64u})
    chunked.push_back(
        {{.path = ScanPath::Shared, .sharedWidth = width}, "shared" + std::to_string(width)});
  chunked.push_back({{.path = ScanPath::Shared, .sharedWidth = 8, .stepsPerLane = 1}, "shared8x1"});
  chunked.push_back(
      {{.path = ScanPath::Shared, .sharedWidth = 16, .packFour = false}, "shared16x1ch"});
  std::vector<PathCase> paths;
  for (PathCase p : chunked) {
    for (const ScanSchedule schedule : {ScanSchedule::ReduceThenScan, ScanSchedule::Chained}) {
      p.options.schedule = schedule;
      paths.push_back({p.options, p.name + " " + gpu::scanScheduleName(schedule)});
    }
  }
  paths.push_back({{.path = ScanPath::Sequential}, "sequential"});
  // The single pass last, so the data the others are tested on stays what it was.
  for (PathCase p : chunked) {
    p.options.schedule = ScanSchedule::SinglePass;
    paths.push_back({p.options, p.name + " single-pass"});
  }
  return paths;
}

struct DiagCase {
  float_batch::SeriesShape shape;
  bool constantA = false;
  bool withH0 = false;
  float aLo = -1, aHi = 1;
};

inline const std::vector<DiagCase>& diagCases() {
  static const std::vector<DiagCase> cases = {
      {{1, 1, 1}, true, false},
      {{1, 1, 7}, false, true},
      {{3, 63, 5}, false, true},
      {{2, 65, 33}, true, true, 0.9f, 1.0f},
      {{1, 4096, 3}, false, true, 0.95f, 1.0f},
      {{4, 257, 17}, false, false},
      {{1, 1000, 64}, true, true, -0.99f, 0.99f},
      {{2, 130, 1}, false, true},
      {{5, 37, 130}, false, true, -1.0f, -0.5f},
      // |a| slightly above 1 over a short T: the state grows, the paths must still agree.
      {{2, 48, 9}, false, true, 1.0f, 1.05f},
      {{1, 64, 4}, true, true, -1.04f, -1.0f},
  };
  return cases;
}

// A constant a (one per channel), else one per (b, t, c).
inline float_batch::TransitionStrides stridesOf(const DiagCase& c) {
  if (c.constantA) return {0, 0};
  return {(long long)c.shape.steps * c.shape.channels, c.shape.channels};
}

// The scan paths a seed model's scan operator is run with: the default, every path with
// chunks short enough that T spans several of them and ends inside one.
inline std::vector<std::pair<std::string, gpu::ScanOptions>> seedModelScanOptions(
    const gpu::Device& dev) {
  using gpu::ScanPath;
  std::vector<std::pair<std::string, gpu::ScanOptions>> out = {
      {"auto", {}},
      {"shared4x2", {.path = ScanPath::Shared, .sharedWidth = 4, .stepsPerLane = 2}},
      {"sequential", {.path = ScanPath::Sequential}}};
  if (dev.info().subgroupArithmetic)
    out.push_back({"subgroup1", {.path = ScanPath::Subgroup, .stepsPerLane = 1}});
  return out;
}

}  // namespace lsrl::testing_vulkan
