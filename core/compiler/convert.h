// lsrl::Graph ⇄ the compiler's IR.
#pragma once

#include <string>
#include <vector>

#include "core/compiler/ir.h"

namespace lsrl::compiler {

// The program proper (the output's ancestors) of `program`, with the same node ids and
// names; every other id is left empty.
template <class S>
CGraph<S> fromGraph(const Graph& program, const Scalars<S>& sc, bool keepArchive = false) {
  CGraph<S> g(sc);
  g.keepArchive(keepArchive);
  const std::vector<NodeId> order = program.topologicalOrder();  // validates acyclicity
  std::vector<char> inProgram(program.nodeCount(), 0);
  for (NodeId id : order) inProgram[static_cast<size_t>(id)] = 1;
  NodeId lastProgram = kNoNode;
  for (NodeId id : order) lastProgram = std::max(lastProgram, id);
  // Payloads first (in id order, so ids match), edges afterwards.
  for (NodeId id = 0; id <= lastProgram; ++id) {
    if (!inProgram[static_cast<size_t>(id)]) {
      g.addPlaceholder();
      continue;
    }
    const Node& n = program.node(id);
    CNode<S> c;
    c.op = n.op;
    c.dim = n.dim;
    c.name = n.name;
    c.slice = n.slice;
    if (n.op == Op::Linear) {
      c.A = fromExact(n.A, sc);
      c.b = fromExact(n.b, n.dim, sc);
    } else if (n.op == Op::LinState) {
      c.A = fromExact(n.A, sc);
      c.B = fromExact(n.B, sc);
      c.init = fromExact(n.init, n.dim, sc);
      c.bias = fromExact(n.bias, n.dim, sc);
    }
    g.add(std::move(c), {});
  }
  for (NodeId id : order) {
    if (!program.node(id).inputs.empty()) g.setInputs(id, program.node(id).inputs);
  }
  g.setOutput(program.output());
  if (g.inputNode() == kNoNode) throw Error("compile: the program has no Input node");
  return g;
}

// One node's payload as an lsrl::Node with IR id `id` and no inputs: the conversion
// toGraph applies (absent vectors become zeros, as Graph::addLinear / addLinState store
// them). For compile histories (core/compiler/history.h, history_file.h).
template <class S>
Node payloadNode(NodeId id, const CNode<S>& c, const Scalars<S>& sc) {
  Node n;
  n.id = id;
  n.op = c.op;
  n.dim = c.dim;
  n.name = c.name;
  n.slice = c.slice;
  auto zerosIfEmpty = [&c](ExactVector v) { return v.empty() ? zerosVector(c.dim) : v; };
  if (c.op == Op::Linear) {
    n.A = toExact(c.A, sc);
    n.b = zerosIfEmpty(toExact(c.b, sc));
  } else if (c.op == Op::LinState) {
    n.A = toExact(c.A, sc);
    n.B = toExact(c.B, sc);
    n.init = zerosIfEmpty(toExact(c.init, sc));
    n.bias = zerosIfEmpty(toExact(c.bias, sc));
  }
  return n;
}

// The path (or any DAG) as an lsrl::Graph in Kahn order; ids[k] is the IR id of the
// new graph's node k.
template <class S>
Graph toGraph(const CGraph<S>& g, std::vector<NodeId>* ids = nullptr) {
  Graph out;
  std::vector<NodeId> newId(static_cast<size_t>(g.idLimit()), kNoNode);
  const Scalars<S>& sc = g.scalars();
  if (ids != nullptr) ids->clear();
  for (NodeId id : g.topologicalOrder()) {
    const CNode<S>& n = g.node(id);
    std::vector<NodeId> ins;
    for (NodeId x : g.inputs(id)) ins.push_back(newId[static_cast<size_t>(x)]);
    NodeId k = kNoNode;
    switch (n.op) {
      case Op::Input:
        k = out.addInput(n.dim, n.name);
        break;
      case Op::Linear:
        if (n.slice) {
          k = out.addSlice(ins.front(), n.slice->start, n.slice->end, n.name);
        } else {
          k = out.addLinear(ins.front(), toExact(n.A, sc), toExact(n.b, sc), n.name);
        }
        break;
      case Op::ReLU:
        k = out.addReLU(ins.front(), n.name);
        break;
      case Op::LinState:
        k = out.addLinState(ins.front(), toExact(n.A, sc), toExact(n.B, sc), toExact(n.init, sc),
                            toExact(n.bias, sc), n.name);
        break;
      case Op::Concat:
        k = out.addConcat(ins, n.name);
        break;
      case Op::Multi:
        k = out.addMulti(ins.front(), n.name);
        break;
    }
    newId[static_cast<size_t>(id)] = k;
    if (ids != nullptr) ids->push_back(id);
  }
  out.setOutput(newId[static_cast<size_t>(g.output())]);
  return out;
}

}  // namespace lsrl::compiler
