// Summary figures of a program graph, as `lsrl info` reports them and as the node
// count table of docs/spec/ua-programs.md counts them (Slice as its own op; only the nodes
// that reach the output).
#pragma once

#include <map>
#include <string>

#include "core/graph/graph.h"

namespace lsrl {

struct GraphStats {
  std::map<std::string, int> countsByOp;  // Input, Linear, Slice, ReLU, LinState, Concat, Multi
  int totalNodes = 0;                     // program nodes
  int unusedNodes = 0;                    // nodes that cannot reach the output
  int inputDim = 0;
  int outputDim = 0;
  int branchNodes = 0;            // program nodes with more than one distinct successor
  long long denseParameters = 0;  // Σ rows×cols of Linear (A, b) and LinState (A, B, bias)
  long long nonZeroParameters = 0;
  int stateDim = 0;   // Σ widths of the LinStates
  int conductor = 4;  // exact field Q(cos 2π/N)
};

GraphStats computeStats(const Graph& g);

}  // namespace lsrl
