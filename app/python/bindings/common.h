// Shared pieces of the `_lsrl` extension module: the node handle every Python node object
// derives from, and the conversions between Python values and exact scalars / matrices.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "core/graph/builder.h"
#include "core/graph/graph.h"
#include "core/graph/matrix.h"
#include "core/numbers/exact.h"

namespace lsrl::py {

namespace pyb = pybind11;

// A node of a graph shared by every Python object that refers to it (the graph lives as
// long as any of its nodes). lsrl.Variable and its subclasses derive from this class.
struct NodeRef {
  std::shared_ptr<Graph> graph;
  NodeId id = kNoNode;

  Var var() const { return Var(graph.get(), id); }
  const Node& node() const { return graph->node(id); }
};

// The graph that every node of `nodes` belongs to; throws lsrl::Error naming `what` when
// they come from different programs (each lsrl.Input starts its own graph).
std::shared_ptr<Graph> commonGraph(const std::vector<const NodeRef*>& nodes, const char* what);

// One scalar, exactly: lsrl.Exact, bool, int (any size), float (its dyadic value),
// fractions.Fraction, numpy scalars, and strings in the scalar grammar ("1/3", "sqrt(2)").
// Anything else is tried as the grammar text of str(value). Throws lsrl::Error.
Exact toExact(pyb::handle value);
// A matrix: ExactMatrix, numpy arrays of any numeric dtype (1-D is a column), nested lists
// or tuples, or one scalar (1x1). Objects with .tolist() (e.g. other matrix types) too.
ExactMatrix toExactMatrix(pyb::handle value);
// A column vector (rows x 1, or 1-D) of `what`; throws naming it when it is not a column.
ExactVector toExactColumn(pyb::handle value, const std::string& what);

// An integer argument in [lo, hi] (bools, floats and strings refused; numpy integers
// and other objects with __index__ accepted). `what` names it as the caller knows it,
// "Input: dim": TypeError "Input: dim must be an integer, got float 2.5", ValueError
// "Input: dim must be between 1 and 1048576, got 1000000000000".
long long integerArgument(pyb::handle value, const std::string& what, long long lo, long long hi);

// A copy of `g` holding only the nodes that reach `output` (ids renumbered in order), with
// that output: what a program file saves.
Graph programOnly(const Graph& g, NodeId output);

pyb::array_t<double> toNumpy(const ExactMatrix& m);
// The values of `m` as nested lists of exact strings.
pyb::list toStringLists(const ExactMatrix& m);
// fractions.Fraction for a rational value; throws lsrl::Error otherwise.
pyb::object toFraction(const Exact& x);

void registerNumbers(pyb::module_& m);
void registerGraph(pyb::module_& m);
void registerSugar(pyb::module_& m);
void registerProgram(pyb::module_& m);
void registerModels(pyb::module_& m);
void registerWeights(pyb::module_& m);
void registerLatticeScan(pyb::module_& m);

}  // namespace lsrl::py
