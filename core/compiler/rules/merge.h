// Debranch cases 2, 3 and 4 (docs/spec/compiler.md): successors of one kind merged into one node.
#pragma once

#include <algorithm>
#include <string>

#include "core/compiler/rule.h"
#include "core/compiler/rules/fold.h"

namespace lsrl::compiler {

// Every successor s_k (width d_k) of `stacked` reads its slice [Σ_{j<k} d_j, Σ_{j≤k} d_j).
template <class S>
void replaceBySlices(CGraph<S>& g, NodeId stacked, const std::vector<NodeId>& succs) {
  int offset = 0;
  const int total = g.dim(stacked);
  for (NodeId s : succs) {
    const int d = g.dim(s);
    const NodeId slice = g.add(makeSlice(g, offset, offset + d, total, g.node(s).name), {stacked});
    g.replaceUses(s, slice);
    offset += d;
  }
}

template <class S>
std::string joinedNames(const CGraph<S>& g, const std::vector<NodeId>& ids) {
  std::string out;
  for (NodeId id : ids) {
    const std::string& n = g.node(id).name;
    if (n.empty()) continue;
    if (!out.empty()) out += "+";
    out += n;
  }
  return out;
}

// 2: every successor is a LinState: one LinState (block-diagonal A, stacked B, init and
// bias) followed by Slices.
template <class S>
class OnlyLinStates final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "2 only LinState"; }
  std::string_view explanation() const override {
    return "LinStates reading the same node merge into one block-diagonal LinState followed by "
           "Slices";
  }
  int benefit() const override { return 120; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.op(s) == Op::LinState; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    // The largest state is moved (not copied) into the merged one when it can be.
    size_t big = 0;
    for (size_t k = 1; k < succs.size(); ++k) {
      if (g.dim(succs[k]) > g.dim(succs[big])) big = k;
    }
    std::vector<NodeId> order = succs;
    std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(big),
                order.begin() + static_cast<std::ptrdiff_t>(big) + 1);
    // order = [big, the others in id order]; slices follow this order.
    std::vector<const SpMat<S>*> As;
    std::vector<const SpMat<S>*> Bs;
    std::vector<const std::vector<S>*> inits;
    std::vector<const std::vector<S>*> biases;
    for (size_t k = 1; k < order.size(); ++k) {
      const CNode<S>& n = g.node(order[k]);
      As.push_back(&n.A);
      Bs.push_back(&n.B);
      inits.push_back(&n.init);
      biases.push_back(&n.bias);
    }
    std::string name = joinedNames(g, order);
    SpMat<S> A0, B0;
    std::vector<S> init0, bias0;
    if (CNode<S>* first = g.takeIfUnique(order[0])) {
      A0 = std::move(first->A);
      B0 = std::move(first->B);
      init0 = std::move(first->init);
      bias0 = std::move(first->bias);
    } else {
      const CNode<S>& n = g.node(order[0]);
      A0 = n.A;
      B0 = n.B;
      init0 = n.init;
      bias0 = n.bias;
    }
    for (const auto* v : inits) init0.insert(init0.end(), v->begin(), v->end());
    for (const auto* v : biases) bias0.insert(bias0.end(), v->begin(), v->end());
    const NodeId merged =
        g.add(makeLinState(blockDiagonalOnto(std::move(A0), As), vstackOnto(std::move(B0), Bs),
                           std::move(init0), std::move(bias0), std::move(name)),
              {branch});
    replaceBySlices(g, merged, order);
  }
};

// 3: every successor is a ReLU of the branch node: one ReLU replaces them.
template <class S>
class OnlyReLUs final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "3 only ReLU"; }
  std::string_view explanation() const override {
    return "ReLUs reading the same node are one ReLU";
  }
  int benefit() const override { return 110; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.op(s) == Op::ReLU; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId r = g.add(makeSimple<S>(Op::ReLU, g.dim(branch)), {branch});
    for (NodeId s : succs) g.replaceUses(s, r);
  }
};

// 4: every successor is a Concat: those whose inputs are all the branch node become
// duplicating Linears (in a valid graph at least one is: the first of them in
// topological order).
template <class S>
class OnlyConcats final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "4 only Concat"; }
  std::string_view explanation() const override {
    return "Concats reading only the branch node become duplicating Linears";
  }
  int benefit() const override { return 100; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.op(s) == Op::Concat; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    bool any = false;
    for (NodeId s : succs) {
      const auto& ins = g.inputs(s);
      if (!allOf(ins, [&](NodeId x) { return x == branch; })) continue;
      const NodeId dup = addDuplicate(g, branch, static_cast<int>(ins.size()), g.node(s).name);
      g.replaceUses(s, dup);
      any = true;
    }
    if (!any) {
      throw Error("compile: rule 4 (only Concat): no Concat of node " + std::to_string(branch) +
                  " reads only that node");
    }
  }
};

}  // namespace lsrl::compiler
