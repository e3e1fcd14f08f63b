// lsrl noise tok2tok|vec2vec ... -o OUT.csv [--plot OUT.svg]: the paper's Fig. 4
// experiment (core/experiments/noise_experiment.h) with progress on stderr and Ctrl-C handling.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <set>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sigint_scope.h"
#include "core/experiments/noise_experiment.h"
#include "core/experiments/noise_plot.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::cli {

namespace {

std::vector<double> parseSigmas(const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : splitList(text)) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(v) || v < 0) {
      throw Error("--sigmas expects non-negative numbers separated by commas, got " +
                  quoteInput(item));
    }
    out.push_back(v);
  }
  if (out.empty()) throw Error("--sigmas is empty");
  return out;
}

std::vector<Conditional> parseVariants(const std::string& text) {
  std::vector<Conditional> out;
  for (const std::string& item : splitList(text)) out.push_back(parseConditional(item));
  if (out.empty()) throw Error("--variants is empty");
  return out;
}

void printSummary(const NoiseExperimentResult& r, const std::vector<double>& sigmas,
                  std::ostream& out) {
  out << "mean " << r.metricName << " over seeds:\n";
  out << std::left << std::setw(26) << "variant";
  for (double s : sigmas) out << std::right << std::setw(14) << ("sigma=" + shortestDouble(s));
  out << "\n";
  const std::vector<NoiseSummaryRow> summary = summarizeNoise(r.rows);
  Conditional current = summary.empty() ? Conditional::Direct : summary.front().variant;
  bool first = true;
  for (const NoiseSummaryRow& s : summary) {
    if (first || s.variant != current) {
      if (!first) out << "\n";
      out << std::left << std::setw(26) << conditionalName(s.variant);
      current = s.variant;
      first = false;
    }
    std::ostringstream v;
    v << std::setprecision(4) << s.mean;
    out << std::right << std::setw(14) << v.str();
  }
  out << "\n";
  for (const NoiseCompileInfo& c : r.compiles) {
    out << "compiled " << conditionalName(c.variant) << ": state dim " << c.stateDim
        << ", non-zero params " << c.nonZeroParams << ", " << std::setprecision(3)
        << c.compileSeconds << " s\n";
  }
}

std::string plotOf(NoiseProgram program, bool optimize, const std::vector<NoiseRow>& rows) {
  std::set<uint64_t> seeds;
  for (const NoiseRow& r : rows) seeds.insert(r.seed);
  NoisePlotOptions po;
  const bool tok = program == NoiseProgram::Tok2tok;
  po.title = std::string(noiseProgramName(program)) + ": weight noise, " +
             (optimize ? "optimised compile" : "--no-optimize") + ", mean of " +
             std::to_string(seeds.size()) + " seeds";
  po.yLabel = tok ? "% wrong output tokens" : "mean absolute error";
  po.logY = !tok;
  return noisePlotSvg(summarizeNoise(rows), po);
}

// --replot IN.csv --plot OUT.svg: the plot and summary of an earlier run.
int replot(const Args& args, NoiseProgram program, std::ostream& out) {
  if (!args.has("plot")) throw Error("--replot needs --plot OUT.svg");
  bool optimize = true;
  NoiseExperimentResult result;
  result.rows = parseNoiseCsv(readWholeFile(args.get("replot")), program, optimize);
  result.metricName = program == NoiseProgram::Tok2tok ? "percent_wrong_tokens" : "mean_abs_error";
  std::vector<double> sigmas;
  for (const NoiseRow& r : result.rows) {
    if (std::find(sigmas.begin(), sigmas.end(), r.sigma) == sigmas.end()) sigmas.push_back(r.sigma);
  }
  writeFileAtomically(args.get("plot"), plotOf(program, optimize, result.rows));
  printSummary(result, sigmas, out);
  out << "wrote " << args.get("plot") << "\n";
  return 0;
}

}  // namespace

int cmdNoise(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl noise tok2tok|vec2vec -o OUT.csv [--plot OUT.svg] [options]",
      "The paper's Fig. 4 experiment: compile each conditional variant in float64 once per\n"
      "seed, add absolute N(0, sigma) noise to the non-zeros of every Linear A, b and\n"
      "LinState A, B, bias, and run each query with every LinState reset to the clean\n"
      "model's state before each step. tok2tok: % wrong output tokens (defaults L=10,\n"
      "entries=20, vocab=10, queries=5); vec2vec: mean |output - f(x)| (defaults n=2, m=2,\n"
      "N=8, queries=10). Writes one CSV row per seed, prints the means per variant and\n"
      "sigma. Progress goes to stderr; Ctrl-C stops without writing files (exit 130).",
      {{"o", "OUT.csv", "where to write the per-seed results (written atomically)"},
       {"plot", "OUT.svg", "also write a plot of the means"},
       {"set", "KEY=VALUE",
        "tok2tok: L, mu, lambda, entries, vocab, queries; vec2vec: n, m, mu, lambda, N, queries",
        true},
       {"variants", "a,b,...", "conditional variants (default: all five)"},
       {"sigmas", "s1,s2,...", "noise levels (default 0,1e-9,1e-7,1e-5)"},
       {"seeds", "N", "seeds per variant (default 5)"},
       {"first-seed", "S", "the first seed (default 1)"},
       {"no-optimize", "", "compile with the plain paper algorithm (no size optimisations)"},
       {"precision", "exact|float64|fp32",
        "fit the programs' constants to the prompts first (docs/precision.md; default exact: "
        "the paper's constants)"},
       {"threads", "N", "threads over the queries of a seed (default: all cores)"},
       {"quiet", "", "no progress on stderr"},
       {"replot", "IN.csv", "plot an earlier run's CSV again (with --plot; runs nothing)"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  const NoiseProgram program = parseNoiseProgram(args->positional()[0]);
  if (args->has("replot")) return replot(*args, program, out);
  if (!args->has("o")) throw Error("missing -o OUT.csv (where to write the results)");

  NoiseExperimentConfig config;
  config.program = program;
  config.settings = args->keyValues("set");
  if (config.settings.count("conditional") != 0) {
    throw Error("--set conditional=... is not accepted here; use --variants");
  }
  if (args->has("variants")) config.variants = parseVariants(args->get("variants"));
  config.sigmas = parseSigmas(args->get("sigmas", "0,1e-9,1e-7,1e-5"));
  config.seeds = parseIntValue(args->get("seeds", "5"), "--seeds", 1, 100000);
  config.firstSeed = static_cast<uint64_t>(
      parseIntValue(args->get("first-seed", "1"), "--first-seed", 0, 1 << 30));
  config.optimize = !args->has("no-optimize");
  if (args->has("precision")) config.precision = parsePrecision(args->get("precision"));
  config.threads = parseIntValue(args->get("threads", "0"), "--threads", 0, 1024);
  const bool quiet = args->has("quiet");

  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](const NoiseProgress& p) {
    if (quiet) return;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "[" << p.done << "/" << p.total << ", " << std::fixed << std::setprecision(1) << s
              << " s] " << p.what << "\n"
              << std::defaultfloat;
  };

  NoiseExperimentResult result;
  {
    const SigintScope interrupts;
    try {
      result = runNoiseExperiment(config, progress, [] { return SigintScope::interrupted(); });
    } catch (const Cancelled&) {
      std::cerr << "lsrl noise: interrupted; no files written\n";
      return 130;
    }
  }

  writeFileAtomically(args->get("o"), noiseCsv(config.program, config.optimize, result.rows));
  if (args->has("plot")) {
    writeFileAtomically(args->get("plot"), plotOf(program, config.optimize, result.rows));
  }
  printSummary(result, config.sigmas, out);
  out << "wrote " << args->get("o") << (args->has("plot") ? " and " + args->get("plot") : "")
      << "\n";
  return 0;
}

}  // namespace lsrl::cli
