// Where two runs of the stepper first disagree: the first step t, and within it the
// first compared node in the first run's topological order, whose values differ beyond
// a tolerance (or at all, when both runs are exact).
//
// What is compared: two runs of the same graph (program vs program) compare every node;
// a compiled path against anything compares the nodes that map by name (a name unique
// in both graphs, on nodes of the same width) plus the outputs; a target model's run
// compares outputs only. Divergence::compared says which.
#pragma once

#include <string>
#include <vector>

#include "app/studio/stepper/stepper_run.h"

namespace lsrl::studio {

struct NodePair {
  NodeId a = kNoNode;
  NodeId b = kNoNode;
  std::string name;  // the shared name, or "output"
};

struct Divergence {
  bool found = false;
  int step = -1;
  NodePair node;  // in run a's and run b's graphs
  int component = -1;
  std::string valueA, valueB;  // the two differing entries
  std::string compared;        // "every node (980)", "42 nodes mapped by name + output", ...
  // "first divergence: t = 17, node 412 'is_copy'[0]: 1 vs 0.99999" or "no divergence ...".
  std::string describe() const;
};

// Node pairs compared between a and b, in a's topological order, the output last.
std::vector<NodePair> comparedNodes(const StepperRun& a, const StepperRun& b, std::string* what);

// Values differ when |x − y| > tolerance · max(1, |x|, |y|) (both exact: when x ≠ y).
Divergence firstDivergence(const StepperRun& a, const StepperRun& b, double tolerance = 1e-6);

}  // namespace lsrl::studio
