// The universal-approximation picture (paper Fig. 3), Qt-free: vec2vec with n = 2,
// m = 1, prompted with a target function on an N x N grid of cells, run (float64, or
// exactly in exact mode; or compiled and run in fp32 on the CPU batch runner, with the
// constants as built or fitted, docs/precision.md; batched) at a grid of queries. Away from the
// cell walls the output is the target at the centre of the query's cell, so the model's picture is
// the target made piecewise constant; the difference to the target shrinks as N grows.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/programs/conditional.h"
#include "core/programs/prompts.h"

namespace lsrl::studio {

struct UaTarget {
  std::string name;     // "sin_cos"
  std::string formula;  // "sin(2πx)·cos(2πy)"
  TargetFunction f;     // [0,1]^2 -> R
};
// The targets offered by the view (a few smooth functions of two variables).
const std::vector<UaTarget>& uaTargets();

// What runs: the program itself (float64, or exact), or its optimised compile in fp32
// with the paper's constants or with the constants fitted for fp32.
enum class UaRun { Program, CompiledFp32, FittedFp32 };

struct UaHeatmapRequest {
  int N = 4;  // cells per axis in the prompt
  Conditional variant = Conditional::Direct;
  int target = 0;   // index into uaTargets()
  int grid = 40;    // queries per axis, at ((i + ½)/grid, (j + ½)/grid)
  int threads = 0;  // runBatch threads; 0: hardware concurrency
  // Run the program exactly: rational query tokens (2i + 1)/(2·grid), the prompt's
  // f(centre) doubles converted exactly; outputs become doubles only for display.
  bool exact = false;  // Program only
  UaRun run = UaRun::Program;
  friend bool operator==(const UaHeatmapRequest&, const UaHeatmapRequest&) = default;
};

struct UaHeatmapResult {
  UaHeatmapRequest request;
  std::vector<double> coords;                 // query coordinate per grid index
  std::vector<std::vector<double>> model;     // [y index][x index]: the program's last output
  std::vector<std::vector<double>> target;    // f at the query
  std::vector<std::vector<double>> expected;  // f at the centre of the query's cell
  std::vector<std::vector<bool>> valid;       // the query is 1/μ away from every cell wall
  // Exact mode only (empty otherwise): the program's last output and f at the cell
  // centre (the prompt's exact value), before conversion to double.
  std::vector<std::vector<Exact>> exactModel;
  std::vector<std::vector<Exact>> exactExpected;
  int tokensPerQuery = 0;
  double seconds = 0;
  std::vector<std::vector<double>> difference() const;  // model − target
  // Largest |model − expected| over the valid queries.
  double maxErrorAtValidQueries() const;
};

// done/total counts grid rows. Throws lsrl::Cancelled once `cancelled` returns true
// (polled between rows), lsrl::Error for bad requests (N or grid < 1, target index).
UaHeatmapResult computeUaHeatmap(const UaHeatmapRequest& request,
                                 const std::function<void(int done, int total)>& progress = {},
                                 const std::function<bool()>& cancelled = {});

}  // namespace lsrl::studio
