// Whole-graph validation with every problem listed (not only the first), each
// naming the node, what was expected and what was found. Builders validate eagerly;
// these checks exist for graphs that come from files or the editor.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

enum class ProblemKind {
  NoInput,
  SecondInput,
  NoOutput,
  DanglingInput,  // an input id that names no node, or an unconnected input (kNoNode)
  Cycle,
  DimensionMismatch,
  MultiOddWidth,
  SliceOutOfRange,
  NonFinite,
  AbsurdSize,
  BadArity,  // wrong number of inputs for the op
};

struct Problem {
  ProblemKind kind;
  NodeId node = kNoNode;  // kNoNode for whole-graph problems
  std::string message;    // complete sentence: node, expected, got
};

// Limits that turn a typo into an error instead of an out-of-memory crash.
constexpr int kMaxNodeDim = 1 << 20;
constexpr long long kMaxMatrixEntries = 1LL << 28;

std::vector<Problem> checkGraph(const Graph& g);
// Throws lsrl::Error with all problems, one per line, if there are any.
void requireValid(const Graph& g, const std::string& source = {});
// requireValid for a compiled path graph, which is huge when counted densely (10^12 entries
// for tok2tok L=10) but sparse: every problem except the dense-size limit (kMaxMatrixEntries)
// of nodes whose width is sane, whose matrix shapes are then checked one by one. Every
// consumer of a path graph (executor plan, targets, fp32 layer programs) calls this first, so
// a malformed model file is refused with the same message as `lsrl check`, never run.
void requireValidPath(const Graph& g, const std::string& source = {});

}  // namespace lsrl
