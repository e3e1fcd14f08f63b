// Debranch cases 1A and 1B (docs/spec/compiler.md): branch nodes read by Multi nodes.
#pragma once

#include "core/compiler/rule.h"

namespace lsrl::compiler {

// 1A: every successor is a Multi of the branch node: they all compute the same product;
// one new Multi replaces them.
template <class S>
class OnlyMultis final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "1A only Multi"; }
  std::string_view explanation() const override {
    return "every reader is the same Multi of the branch node: one Multi replaces them";
  }
  int benefit() const override { return 140; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.op(s) == Op::Multi; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId m =
        g.add(makeSimple<S>(Op::Multi, g.dim(branch) / 2, g.node(succs.front()).name), {branch});
    for (NodeId s : succs) g.replaceUses(s, m);
  }
};

// 1B: some successors are Multi, others not. One Linear feeds one Multi that computes
// the product and passes the branch value x = [x1; x2] through:
//   [x1; 1; 1] ⊙ [x2; x1; x2] = [x1⊙x2; x1; x2],
// then Slices recover the product (for the Multis' users) and x (for the others).
template <class S>
class MultiBypass final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "1B Multi bypass"; }
  std::string_view explanation() const override {
    return "a Multi also passes its inputs through, and Slices give the product and the inputs to "
           "their readers";
  }
  int benefit() const override { return 130; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return anyOf(succs, [&](NodeId s) { return g.op(s) == Op::Multi; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const int d = g.dim(branch);
    const int h = d / 2;
    const S one = g.one();
    // rows: x1 (h), ones (2h, from b), x2 (h), x1 (h), x2 (h)
    const SpMat<S> first = SpMat<S>::selection(0, h, d, one);
    const SpMat<S> second = SpMat<S>::selection(h, d, d, one);
    const SpMat<S> zeros = SpMat<S>::zeros(2 * h, d);
    SpMat<S> A = vstack<S>({&first, &zeros, &second, &first, &second});
    std::vector<S> b = zerosOf(g, 6 * h);
    for (int i = h; i < 3 * h; ++i) b[static_cast<size_t>(i)] = one;
    const NodeId pre = g.add(makeLinear(std::move(A), std::move(b), "BypassOfMul"), {branch});
    const NodeId mul = g.add(makeSimple<S>(Op::Multi, 3 * h), {pre});
    const NodeId product = g.add(makeSlice(g, 0, h, 3 * h), {mul});
    const NodeId value = g.add(makeSlice(g, h, 3 * h, 3 * h), {mul});
    for (NodeId s : succs) {
      if (g.op(s) == Op::Multi) {
        g.replaceUses(s, product);
      } else {
        g.replaceInput(s, branch, value);
      }
    }
  }
};

}  // namespace lsrl::compiler
