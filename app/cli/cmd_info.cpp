// lsrl info FILE.json -> one JSON object of summary figures.
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/runnable_file.h"
#include "core/graph/stats.h"
#include "core/io/graph_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

int cmdInfo(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{"lsrl info FILE.json",
                         "Prints one JSON object: node counts per op (Slice counted as its own "
                         "op), input and\noutput widths, branch-node count, parameter counts "
                         "and the exact number field.",
                         {},
                         1,
                         1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  const Graph g =
      loadRunnableGraph(args->positional()[0], false, Validation::Report);  // program or model
  const GraphStats s = computeStats(g);
  nlohmann::ordered_json j;
  j["file"] = args->positional()[0];
  j["nodes"] = s.countsByOp;
  j["total_nodes"] = s.totalNodes;
  j["unused_nodes"] = s.unusedNodes;
  j["input_dim"] = s.inputDim;
  j["output_dim"] = s.outputDim;
  j["branch_nodes"] = s.branchNodes;
  j["parameters"] = s.denseParameters;
  j["nonzero_parameters"] = s.nonZeroParameters;
  j["state_dim"] = s.stateDim;
  j["field"] = "Q(cos(2*pi/" + std::to_string(s.conductor) + "))";
  out << j.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
