// Fold rules F1–F4 (docs/spec/compiler.md), applied to a fixed point before, during and after
// debranching. Each looks at a node n and its (single) predecessor p.
#pragma once

#include "core/compiler/rule.h"

namespace lsrl::compiler {

// F1: Linear p → Linear n, p with no other successor: one Linear (A_n·A_p, A_n·b_p + b_n).
template <class S>
class FoldLinearLinear final : public FoldRule<S> {
 public:
  std::string_view name() const override { return "F1 fold Linear-Linear"; }
  std::string_view explanation() const override {
    return "a Linear read only by another Linear is multiplied into it: one Linear";
  }
  int benefit() const override { return 40; }
  bool match(const CGraph<S>& g, NodeId n) const override {
    if (g.op(n) != Op::Linear) return false;
    const NodeId p = g.input0(n);
    return g.op(p) == Op::Linear && g.outDegree(p) == 1;
  }
  void rewrite(CGraph<S>& g, NodeId n) const override {
    const NodeId p = g.input0(n);
    const CNode<S>& a = g.node(p);
    const CNode<S>& b = g.node(n);
    std::vector<S> offset = multiplyAdd(b.A, a.b, b.b, g.zero());
    std::string name = b.name;
    SpMat<S> A = replacedTimes(g, n, a.A);  // may move b.A out: not read after this
    const NodeId fused =
        g.add(makeLinear(std::move(A), std::move(offset), std::move(name)), {g.input0(p)});
    g.replaceUses(n, fused);
  }
};

// F2: ReLU → ReLU: the second reads the first's input (ReLU is idempotent).
template <class S>
class FoldReluRelu final : public FoldRule<S> {
 public:
  std::string_view name() const override { return "F2 fold ReLU-ReLU"; }
  std::string_view explanation() const override {
    return "a ReLU of a ReLU reads the first one's input (ReLU is idempotent)";
  }
  int benefit() const override { return 30; }
  bool match(const CGraph<S>& g, NodeId n) const override {
    return g.op(n) == Op::ReLU && g.op(g.input0(n)) == Op::ReLU;
  }
  void rewrite(CGraph<S>& g, NodeId n) const override { g.setInputs(n, {g.input0(g.input0(n))}); }
};

// F3: Linear → LinState: absorbed into the state (B·A, B·b + bias).
template <class S>
class FoldLinearLinState final : public FoldRule<S> {
 public:
  std::string_view name() const override { return "F3 fold Linear-LinState"; }
  std::string_view explanation() const override {
    return "a Linear feeding a LinState is absorbed into the state's input matrix and bias";
  }
  int benefit() const override { return 20; }
  bool match(const CGraph<S>& g, NodeId n) const override {
    return g.op(n) == Op::LinState && g.op(g.input0(n)) == Op::Linear;
  }
  void rewrite(CGraph<S>& g, NodeId n) const override {
    const NodeId p = g.input0(n);
    const CNode<S>& lin = g.node(p);
    const CNode<S>& st = g.node(n);
    SpMat<S> B = multiply(st.B, lin.A);
    std::vector<S> bias = multiplyAdd(st.B, lin.b, st.bias, g.zero());
    CNode<S> fused = makeLinState(SpMat<S>{}, std::move(B), {}, std::move(bias), st.name);
    if (CNode<S>* old = g.takeIfUnique(n)) {  // n is replaced: move its A and init
      fused.A = std::move(old->A);
      fused.init = std::move(old->init);
    } else {
      fused.A = st.A;
      fused.init = st.init;
    }
    fused.dim = fused.A.rows;
    const NodeId id = g.add(std::move(fused), {g.input0(p)});
    g.replaceUses(n, id);
  }
};

// F4: a Concat whose inputs are all one node: a duplicating Linear [I; I; …].
template <class S>
class FoldConcatDuplicate final : public FoldRule<S> {
 public:
  std::string_view name() const override { return "F4 fold Concat-duplicate"; }
  std::string_view explanation() const override {
    return "a Concat of copies of one node becomes a duplicating Linear [I; I; ...]";
  }
  int benefit() const override { return 10; }
  bool match(const CGraph<S>& g, NodeId n) const override {
    if (g.op(n) != Op::Concat) return false;
    const auto& ins = g.inputs(n);
    for (NodeId x : ins) {
      if (x != ins.front()) return false;
    }
    return !ins.empty();
  }
  void rewrite(CGraph<S>& g, NodeId n) const override;
};

// The duplicating Linear [I; I; …] (k copies) of a node of width d.
template <class S>
NodeId addDuplicate(CGraph<S>& g, NodeId x, int copies, std::string name = "Duplicate") {
  const int d = g.dim(x);
  const SpMat<S> eye = SpMat<S>::identity(d, g.one());
  std::vector<const SpMat<S>*> blocks(static_cast<size_t>(copies), &eye);
  return g.add(makeLinear(vstack(blocks), zerosOf(g, d * copies), std::move(name)), {x});
}

template <class S>
void FoldConcatDuplicate<S>::rewrite(CGraph<S>& g, NodeId n) const {
  const NodeId x = g.inputs(n).front();
  const NodeId dup = addDuplicate(g, x, static_cast<int>(g.inputs(n).size()), g.node(n).name);
  g.replaceUses(n, dup);
}

}  // namespace lsrl::compiler
