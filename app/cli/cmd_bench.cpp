// lsrl bench run: throughput benchmarks (not timed tests). Every benchmark ends its
// output with one JSON line of its figures.
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/bench_run.h"
#include "app/cli/commands.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdBench(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl bench run [--tokens N] [--exact-tokens N] [--repeats R]",
      "Benchmarks. `run`: tokens per second of DAG execution of tok2tok (L=3, direct) and\n"
      "vec2vec (n=2, m=1, direct), float64 and exact, one thread, median of R runs after a\n"
      "warm-up. Build in Release for meaningful figures. The last line is one JSON object.",
      {{"tokens", "N", "float64 input length (default 10000)"},
       {"exact-tokens", "N", "exact input length (default 10000)"},
       {"repeats", "R", "timed runs per figure (default 5)"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (args->positional()[0] != "run") {
    throw Error("unknown benchmark \"" + args->positional()[0] + "\" (available: run)");
  }
  BenchRunOptions options;
  auto count = [&](const char* name, int& field) {
    if (!args->has(name)) return;
    field = parseIntValue(args->get(name), std::string("--") + name, 1, 1 << 30);
  };
  count("tokens", options.floatTokens);
  count("exact-tokens", options.exactTokens);
  count("repeats", options.repeats);
  return benchRun(options, out);
}

}  // namespace lsrl::cli
