// lsrl check FILE.json: every problem of a graph file, one per line.
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/runnable_file.h"
#include "core/graph/checks.h"
#include "core/io/graph_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdCheck(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{"lsrl check FILE.json",
                         "Validates a graph file and lists every problem found (exit code 1 if "
                         "any).",
                         {},
                         1,
                         1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  const std::string& path = args->positional()[0];
  const Graph g = loadRunnableGraph(
      path, false, Validation::Report);  // structural errors throw with their location
  const std::vector<Problem> problems = checkGraph(g);
  if (problems.empty()) {
    out << path << ": ok (" << g.programNodes().size() << " nodes)\n";
    return 0;
  }
  for (const Problem& p : problems) out << path << ": " << p.message << "\n";
  out << problems.size() << " problem(s) found\n";
  return 1;
}

}  // namespace lsrl::cli
