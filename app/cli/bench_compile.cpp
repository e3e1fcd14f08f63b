#include "app/cli/bench_compile.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli/bench_timing.h"
#include "core/compiler/compiler.h"
#include "core/programs/program_registry.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

// The sizes docs/compiler.md compares with the reference implementation: tok2tok L=3, vec2vec n=2
// m=1.
std::map<std::string, std::string> benchParams(const std::string& program,
                                               const std::string& variant) {
  if (program == "tok2tok") return {{"L", "3"}, {"conditional", variant}};
  if (program == "vec2vec") return {{"n", "2"}, {"m", "1"}, {"conditional", variant}};
  throw Error("bench compile: unknown program \"" + program + "\" (tok2tok, vec2vec)");
}

Backend backendFromName(const std::string& name) {
  if (name == "exact") return Backend::Exact;
  if (name == "float64") return Backend::Float64;
  throw Error("bench compile: unknown backend \"" + name + "\" (exact, float64)");
}

}  // namespace

int benchCompile(const BenchCompileOptions& options, std::ostream& out) {
  if (options.repeats < 1) throw Error("bench compile: repeats must be positive");
  out << "compile() alone, history recording on, median of " << options.repeats
      << " runs; tok2tok L=3, vec2vec n=2 m=1.\n\n"
      << padded("program", 8) << padded("variant", 25) << padded("backend", 8) << padded("opt", 4)
      << padded("steps", 7) << padded("state", 8) << padded("dense", 10) << padded("nonzero", 10)
      << padded("median ms", 11) << "\n";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const std::string& program : options.programs) {
    for (const std::string& variant : options.variants) {
      const Graph g = buildProgram(program, benchParams(program, variant));
      for (const std::string& backend : options.backends) {
        for (const bool optimize : options.optimize) {
          CompileOptions co;
          co.backend = backendFromName(backend);
          co.optimize = optimize;
          std::vector<double> seconds;
          CompileResult r;
          for (int i = 0; i < options.repeats; ++i) {
            r = compile(g, co);
            seconds.push_back(r.seconds);
          }
          const GraphSize s = graphSize(r.path);
          const double ms = midpointMedian(seconds) * 1e3;
          out << padded(program, 8) << padded(variant, 25) << padded(backend, 8)
              << padded(optimize ? "on" : "off", 4) << padded(std::to_string(r.stepCount), 7)
              << padded(std::to_string(s.stateDim), 8) << padded(fmt("%.3g", s.denseParams), 10)
              << padded(std::to_string(s.nonZeroParams), 10) << padded(fmt("%.2f", ms), 11) << "\n";
          rows.push_back({{"program", program},
                          {"variant", variant},
                          {"backend", backend},
                          {"optimize", optimize},
                          {"steps", r.stepCount},
                          {"state_dim", s.stateDim},
                          {"state_widths", s.stateWidths},
                          {"dense_params", s.denseParams},
                          {"nonzero_params", s.nonZeroParams},
                          {"median_ms", std::round(ms * 100) / 100}});
        }
      }
    }
  }
  out << "\n" << nlohmann::ordered_json{{"bench", "compile"}, {"rows", rows}}.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
