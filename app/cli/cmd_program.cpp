// lsrl program NAME [--set key=value]... -o FILE.json [--layout]
#include <nlohmann/json.hpp>
#include <ostream>
#include <utility>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/precision_options.h"
#include "app/layout/full_layout.h"
#include "core/io/graph_file.h"
#include "core/programs/program_registry.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdProgram(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl program NAME [--set key=value]... -o FILE.json [--layout]",
      "Builds one of the paper's programs (NAME: more_ones, vec2vec, tok2tok) and writes it as a\n"
      "graph file. Keys: n, m (vec2vec input/output dims), L (tok2tok key/value length),\n"
      "conditional (direct, optimized, step_optimized, multiplicative,\n"
      "multiplicative_optimized), mu (step scale, default 1000), lambda (large constant,\n"
      "default 1e10). Values use the exact scalar grammar (e.g. 1e10, 1/3). --layout stores\n"
      "the explorer's positions (a Graphviz dot layout, or layers for graphs too big for dot;\n"
      "sugar groups collapsed) in the file. The file's metadata records the program, its\n"
      "parameters and the inputs it is meant for (\"domain\"), which lsrl compile fits the\n"
      "constants to (docs/precision.md).",
      {{"set", "key=value", "program parameter", true},
       {"o", "FILE.json", "output graph file (written atomically)"},
       {"layout", "", "store a dot layout of the graph in the file"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("o")) throw Error("missing -o FILE.json (where to write the program)");
  const std::string name = args->positional()[0];
  const auto params = args->keyValues("set");
  Graph g = buildProgram(name, params);
  const ProgramDomain domain = programDomain(name);
  nlohmann::json metadata;
  metadata["program"] = name;
  metadata["params"] = params;
  metadata["domain"] = declaredDomainJson(domain.lo, domain.hi, domain.grid, domain.horizon);
  if (args->has("layout")) {
    LayoutResult layout = fullLayout(g).layout;
    g.layout() = std::move(layout.nodes);
    g.groupLayout() = std::move(layout.groups);
  }
  saveGraphFile(g, args->get("o"), metadata);
  out << "wrote " << args->get("o") << " (" << g.programNodes().size() << " nodes)\n";
  return 0;
}

}  // namespace lsrl::cli
