// lsrl bench run: throughput benchmarks (not timed tests). Every benchmark ends its
// output with one JSON line of its figures.
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/bench_compile.h"
#include "app/cli/bench_models.h"
#include "app/cli/bench_precision.h"
#include "app/cli/bench_run.h"
#include "app/cli/bench_vulkan.h"
#include "app/cli/commands.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdBench(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl bench run|compile|vulkan|models|precision [--tokens N] [--exact-tokens N]\n"
      "                       [--repeats R] [--programs a,b] [--variants a,b] [--backends a,b]\n"
      "                       [--no-optimize] [--cases N] [--lengths 3,10] [--json FILE]",
      "Benchmarks. `compile`: compile() time (median of R runs) and compiled sizes of\n"
      "tok2tok (L=3) and vec2vec (n=2, m=1) per variant and backend; --no-optimize adds the\n"
      "plain paper algorithm beside the optimised compile. `run`: tokens per second of DAG "
      "execution of tok2tok (L=3, direct) and\n"
      "vec2vec (n=2, m=1, direct), float64 and exact, one thread, median of R runs after a\n"
      "warm-up. `vulkan`: copy vs diagonal-scan bandwidth on the Vulkan device and the UA\n"
      "heat-map job (4,096 vec2vec sequences) on the fp32 CPU runner and on Vulkan.\n"
      "`models`: minGRU's recurrence sequential vs parallel scan at T = 512 and 4096 on the\n"
      "CPU and on the Vulkan device, beside a GRU's (docs/models.md).\n"
      "`precision`: wrong answers of the paper's programs compiled as built and with their\n"
      "constants fitted (--precision float64, fp32), run exactly, in float64 and in fp32\n"
      "(docs/precision.md).\n"
      "Build in Release for meaningful figures. The last line is one JSON object.",
      {{"tokens", "N", "float64 input length (default 10000)"},
       {"exact-tokens", "N", "exact input length (default 10000)"},
       {"repeats", "R", "timed runs per figure (default 5)"},
       {"programs", "LIST", "compile: programs (default tok2tok,vec2vec)"},
       {"variants", "LIST", "compile: conditional variants (default all five)"},
       {"backends", "LIST", "compile: float64,exact (default both)"},
       {"no-optimize", "", "compile: also compile without the size optimisations"},
       {"no-ua", "", "vulkan: kernels only, no UA heat-map job"},
       {"fitted", "", "vulkan: the UA job with its constants fitted for fp32 (docs/precision.md)"},
       {"grid", "G", "vulkan: G x G queries in the UA job (default 64)"},
       {"compare-fusion", "",
        "vulkan: on a CPU driver also run the UA job fused (GPUs always run both)"},
       {"channels", "D", "models: d_h (default 64)"},
       {"batch", "B", "models: sequences in the batched Vulkan figures (default 16)"},
       {"no-vulkan", "", "models: CPU figures only"},
       {"cases", "N", "precision: dictionaries, queries or bit strings per row (default 200)"},
       {"lengths", "LIST", "precision: tok2tok key lengths L (default 3,10)"},
       {"horizon", "T", "precision: the domain's horizon and longest input (default 160)"},
       {"seed", "S", "precision: seed of the inputs (default 0)"},
       {"vulkan", "", "precision: also run fp32 and fp64 on the Vulkan device, timed"},
       {"json", "FILE", "precision: also write the JSON line to FILE"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  const std::string& which = args->positional()[0];
  if (which == "compile") {
    BenchCompileOptions options;
    auto list = [&](const char* name, std::vector<std::string>& field) {
      if (args->has(name)) field = splitList(args->get(name));
    };
    list("programs", options.programs);
    list("variants", options.variants);
    list("backends", options.backends);
    if (args->has("no-optimize")) options.optimize = {false, true};
    if (args->has("repeats")) {
      options.repeats = parseIntValue(args->get("repeats"), "--repeats", 1, 1000);
    }
    return benchCompile(options, out);
  }
  if (which == "vulkan") {
    BenchVulkanOptions options;
    if (args->has("repeats"))
      options.repeats = parseIntValue(args->get("repeats"), "--repeats", 1, 1000);
    if (args->has("grid")) options.grid = parseIntValue(args->get("grid"), "--grid", 1, 1024);
    options.uaJob = !args->has("no-ua");
    options.fitted = args->has("fitted");
    options.compareFusion = args->has("compare-fusion");
    return benchVulkan(options, out);
  }
  if (which == "models") {
    BenchModelsOptions options;
    if (args->has("repeats"))
      options.repeats = parseIntValue(args->get("repeats"), "--repeats", 1, 1000);
    if (args->has("channels"))
      options.channels = parseIntValue(args->get("channels"), "--channels", 1, 4096);
    if (args->has("batch")) options.batch = parseIntValue(args->get("batch"), "--batch", 1, 4096);
    options.vulkan = !args->has("no-vulkan");
    return benchModels(options, out);
  }
  if (which == "precision") {
    BenchPrecisionOptions options;
    if (args->has("programs")) options.programs = splitList(args->get("programs"));
    if (args->has("variants")) options.variants = splitList(args->get("variants"));
    if (args->has("lengths")) {
      options.lengths.clear();
      for (const std::string& L : splitList(args->get("lengths")))
        options.lengths.push_back(parseIntValue(L, "--lengths", 1, 64));
    }
    if (args->has("cases")) options.cases = parseIntValue(args->get("cases"), "--cases", 1, 100000);
    if (args->has("horizon"))
      options.horizon = parseIntValue(args->get("horizon"), "--horizon", 1, 100000);
    if (args->has("seed"))
      options.seed = static_cast<uint64_t>(parseIntValue(args->get("seed"), "--seed", 0, 1 << 30));
    options.vulkan = args->has("vulkan");
    options.jsonPath = args->get("json");
    return benchPrecision(options, out);
  }
  if (which != "run") {
    throw Error("unknown benchmark \"" + which +
                "\" (available: run, compile, vulkan, models, precision)");
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
