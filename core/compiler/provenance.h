// Which program value each component of a compiled path carries (as Tracr labels its
// residual stream): a path LinState row that holds the program's `query[1]` at every step
// of every input is labelled "query[1]".
//
// Found symbolically, not by sampling: both graphs are numbered with one table of values
// in canonical affine form over shared atoms (input components, ReLUs, products, state
// rows), so that folded Linears, stacked blocks, pass-through channels and the
// f_relu_identity bypass (ReLU(x) − ReLU(−x) = x) all come out equal to the program
// value they carry; LinState rows are matched across graphs by partition refinement.
// Sound (a label is never wrong in exact arithmetic) but not complete: a component equal
// to a program value in a way the table does not see stays unlabelled. In float64 the
// coefficients are compared as the compile computed them, so a fold that rounds a
// product differently from the program's own chain leaves that component unlabelled.
//
//   PathProvenance p = tracePathProvenance(program, compiled.path, Backend::Exact);
//   if (const auto& c = p.carried[node][i]) label = carriedLabel(program, *c);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/graph/graph.h"

namespace lsrl {

struct Carried {
  // How the component relates to the program value: equal, its negation, ReLU(value),
  // ReLU(−value) (the halves of a ReLU bypass), or a constant (node is kNoNode).
  enum class Relation { Same, Negated, ReluOf, ReluOfNegated, Constant };
  NodeId node = kNoNode;  // program node
  int component = 0;
  Relation relation = Relation::Same;
  std::string constant;  // Relation::Constant: the value, "1", "-1/2"
};

struct PathProvenance {
  // [path node][component]; nullopt where no program value is known to be carried.
  std::vector<std::vector<std::optional<Carried>>> carried;
  int components = 0;  // over the path's non-Input nodes
  int labelled = 0;    // of those, the ones with a Carried
};

// Both graphs must read the same input (the path compiled from the program). Throws
// lsrl::Error when the input widths differ.
PathProvenance tracePathProvenance(const Graph& program, const Graph& path, Backend backend);

// "query[1]", "−query[1]", "relu(query[1])", "relu(−query[1])", "1"; an unnamed program
// node is named by the sugar call that created it, "f_larger#412" (or "#412").
std::string carriedLabel(const Graph& program, const Carried& c);

}  // namespace lsrl
