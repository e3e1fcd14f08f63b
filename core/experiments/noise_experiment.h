// The paper's Fig. 4 experiment: how the compiled float64 models of tok2tok and vec2vec
// degrade when absolute Gaussian noise N(0, σ) is added to their non-zero weights.
//
// Per seed and conditional variant the program is compiled once in float64 (the
// dictionary / target function and queries change with the seed). Each query runs the
// clean compiled model and, in lockstep, one noisy copy per σ; before every step each
// noisy LinState is reset to the clean model's state at that point, so errors do not
// pile up through time (the authors' protocol). Metrics:
//  - tok2tok: % of output tokens (the last L outputs, rounded to the nearest integer)
//    that differ from the dictionary's value;
//  - vec2vec: mean absolute error of the last output against f(x), the target function
//    at the query (so the cell discretisation error shows at σ = 0, as in the paper).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/precision/fit_constants.h"
#include "core/programs/conditional.h"

namespace lsrl {

enum class NoiseProgram { Tok2tok, Vec2vec };
std::string_view noiseProgramName(NoiseProgram p);  // "tok2tok", "vec2vec"
NoiseProgram parseNoiseProgram(std::string_view name);

struct NoiseExperimentConfig {
  NoiseProgram program = NoiseProgram::Tok2tok;
  // key=value settings in the scalar grammar. Program parameters (tok2tok: L, mu, lambda;
  // vec2vec: n, m, mu, lambda) and the experiment's own: tok2tok entries (dictionary
  // size), vocab, queries (per seed); vec2vec N (cells per axis), queries (per seed).
  // Unset keys take the paper's Fig. 4 values (noiseExperimentDefaults).
  std::map<std::string, std::string> settings;
  std::vector<Conditional> variants = allConditionals();
  std::vector<double> sigmas = {0};
  int seeds = 5;
  uint64_t firstSeed = 1;
  bool optimize = true;  // CompileOptions::optimize (false: the plain paper algorithm)
  // Exact: the programs' constants as built (the paper's). Float64 / Fp32: fitted first to
  // the experiment's inputs (docs/precision.md): tok2tok tokens 0..vocab-1 on Z, vec2vec
  // values in [-3, 3]; the horizon is the prompt's length.
  Precision precision = Precision::Exact;
  int threads = 0;  // over the queries of one seed; 0: hardware concurrency
  // Run the noisy models only at the steps whose output the metric reads (the answer
  // steps). Equivalent to running them at every step, because every LinState is reset to
  // the clean state before each step; off only to test that equivalence.
  bool skipUnreadSteps = true;
};

// Every setting key of a program with its default, e.g. {"L", "10"}, {"entries", "20"}.
std::map<std::string, std::string> noiseExperimentDefaults(NoiseProgram p);

struct NoiseRow {
  Conditional variant = Conditional::Direct;
  double sigma = 0;
  uint64_t seed = 0;
  double metric = 0;
};

// Size of one compiled variant (first seed), for reports.
struct NoiseCompileInfo {
  Conditional variant = Conditional::Direct;
  long long stateDim = 0;
  long long nonZeroParams = 0;
  double compileSeconds = 0;
};

struct NoiseExperimentResult {
  std::string metricName;      // "percent_wrong_tokens" or "mean_abs_error"
  std::vector<NoiseRow> rows;  // variant, then σ (config order), then seed
  std::vector<NoiseCompileInfo> compiles;
};

struct NoiseProgress {
  long long done = 0;  // work units: one compile or one query run
  long long total = 0;
  std::string what;  // e.g. "seed 3, direct: query 2/5"
};

// Throws lsrl::Error for bad settings, lsrl::Cancelled once `cancelled` returns true
// (polled before every step of every query and during compiles, from worker threads: keep
// it cheap and thread-safe, e.g. an atomic flag). The progress callback may be called from
// worker threads, one call at a time. Results do not depend on config.threads.
NoiseExperimentResult runNoiseExperiment(
    const NoiseExperimentConfig& config,
    const std::function<void(const NoiseProgress&)>& progress = {},
    const std::function<bool()>& cancelled = {});

struct NoiseSummaryRow {
  Conditional variant = Conditional::Direct;
  double sigma = 0;
  double mean = 0;
  int seeds = 0;
};
// The mean metric per variant × σ over the seeds, in the rows' order.
std::vector<NoiseSummaryRow> summarizeNoise(const std::vector<NoiseRow>& rows);

}  // namespace lsrl
