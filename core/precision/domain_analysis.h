// What every node of a program can take over a declared input domain, and, for every
// sugar construct whose result depends on a "big" constant (a step's scale μ, a
// conditional's λ), the smallest constant that gives the same result there. The
// precision pass (fit_constants.h) replaces the constants by these; this analysis,
// run again on the result, is its proof (docs/precision.md).
//
// Values are bounded per component by ValueRange. A sugar group is analysed by its
// contract (what it computes when its constants are large enough), not by its
// primitives: f_step(z) is exactly 0 or 1 when z never falls inside its ramp (0, 1/μ),
// a conditional selects exactly when its condition is 0 or 1 and λ bounds the values it
// gates, f_modulo_counter counts exactly when μ(1 − cos(π/n)) ≥ 1. A step whose input is
// continuous and crosses 0 cannot be proved to saturate; the analysis then assumes it
// does, and says so (the result holds for the inputs where it does).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/numbers/exact_field.h"
#include "core/precision/value_range.h"

namespace lsrl {

struct InputDomain {
  Exact lo;  // every input component, at every step
  Exact hi;
  std::optional<mpq_class> grid;  // inputs on lo + grid·ℤ (tokens: 1)
  int horizon = 1;                // steps 1..horizon
  std::string describe() const;   // "inputs in [0, 9] (whole numbers), t ≤ 160"
};

// The smallest domain that holds `inputs`: the box of every component, the grid ℤ when
// every value is a whole number, the longest sequence's length. Throws lsrl::Error when
// there is no token.
InputDomain domainOf(const std::vector<std::vector<std::vector<Exact>>>& inputs);

struct ConstantSite {
  GroupId group = kNoGroup;     // the construct whose contract needs the constant
  GroupId topGroup = kNoGroup;  // the outermost group around it (the call a user made)
  // A gate written with primitives (gateAt below) has no group: its −λ·I Linear.
  NodeId gateNode = kNoNode;
  std::string label;  // "f_ifelse (node 118)", "gate ReLU(−λ·test + value) (node 40)"
  std::string param;  // "scale" or "large_constant", in both groups
  Exact value;        // as built
  // The least value that keeps the contract on the domain; none when the analysis
  // cannot prove it for any value (then the constant must not get smaller).
  std::optional<Exact> least;
  std::string why;  // where the bound comes from, naming nodes and their ranges
};

struct DomainAnalysis {
  std::vector<std::vector<ValueRange>> values;  // per node id; empty when not run
  std::vector<ConstantSite> sites;              // in node order
  // Steps whose saturation is assumed, not proved (ConstantSite::least is none).
  std::vector<std::string> assumptions;
};

// The "optimized" conditional's one-sided gate as the paper's programs write it, with
// primitives and no sugar group: relu = ReLU(S·Concat(gate, value)) with S = [I, ±I] and
// gate = −λ·I·test (no offsets). It is ReLU(±value) where test = 0 and 0 where test = 1,
// given ±value ≤ λ. Recognised only when none of its nodes is in a group and the gate,
// the Concat and S feed nothing else, so that λ can be changed in the gate alone.
struct GatePattern {
  NodeId relu = kNoNode;
  NodeId gate = kNoNode;  // the Linear −λ·I
  NodeId test = kNoNode;
  NodeId value = kNoNode;
  Exact lambda;
  int sign = 1;  // +value or −value
};
std::optional<GatePattern> gateAt(const Graph& g, NodeId relu,
                                  const std::vector<std::vector<NodeId>>& successors);

// Throws lsrl::Error when a LinState is too large to bound in reasonable time (width³ ×
// horizon over 10⁷ for a non-diagonal A) or the domain is empty.
// It also throws when bounding the LinStates takes longer than `timeLimitSeconds` (exact
// numbers can grow with every step of a recurrence), naming the node.
DomainAnalysis analyseDomain(const Graph& g, const InputDomain& domain,
                             double timeLimitSeconds = 10);

// The group's function name and output node, e.g. "f_step (node 17)".
std::string groupLabel(const Graph& g, GroupId id);

}  // namespace lsrl
