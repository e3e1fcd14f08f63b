// Where two runs of the stepper first disagree: the first step t, and within it the
// first compared node in the first run's topological order, whose values differ beyond
// a tolerance (or at all, when both runs are exact).
//
// What is compared: two runs of the same graph (program vs program) compare every node;
// a compiled path against a program run or another compiled path compares program nodes,
// each component through the path component that carries it (core/compiler/provenance.h),
// so the divergence names the first program node where the two runs differ; two paths
// without labels are paired node by node (same shape) or by shared names; a target
// model's run compares outputs only. The outputs are compared last in every case.
// Divergence::compared says which.
#pragma once

#include <string>
#include <vector>

#include "app/studio/stepper/stepper_run.h"

namespace lsrl::studio {

struct NodePair {
  NodeId a = kNoNode;
  NodeId b = kNoNode;
  std::string name;             // the shared name, or "output"
  bool inProgramTerms = false;  // a = b = a program node, read through what each run holds
  std::string context;          // in program terms: the innermost sugar call, "f_larger"
};

struct Divergence {
  bool found = false;
  int step = -1;
  NodePair node;  // in run a's and run b's graphs
  int component = -1;
  std::string valueA, valueB;  // the two differing entries
  std::string heldBy;          // in program terms: "path node 9[2] in B", or empty
  std::string compared;        // "every node (980)", "42 nodes mapped by name + output", ...
  // "first divergence: t = 17, node 412 'is_copy'[0]: 1 vs 0.99999" or "no divergence ...".
  std::string describe() const;
};

// Node pairs compared between a and b, in a's topological order, the output last.
std::vector<NodePair> comparedNodes(const StepperRun& a, const StepperRun& b, std::string* what);

// Values differ when |x − y| > tolerance · max(1, |x|, |y|) (both exact: when x ≠ y).
Divergence firstDivergence(const StepperRun& a, const StepperRun& b, double tolerance = 1e-6);

}  // namespace lsrl::studio
