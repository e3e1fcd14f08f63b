// Debranch cases 5A and 5B (docs/spec/compiler.md): branch nodes read only by Linears.
#pragma once

#include <algorithm>
#include <vector>

#include "core/compiler/rule.h"
#include "core/compiler/rules/merge.h"

namespace lsrl::compiler {

// 5A: every successor is a Slice. Each Slice is pushed into what follows it:
// - Slice → Multi: first (a separate step, "5A Slice-Multi bypass") one Linear feeding one
//   Multi computes every such product and passes the branch value through (value ⊙ 1);
//   Slices of that Multi replace the products and feed the other Slices;
// - Slice → Linear: fused (A·S, A·b_S + b);  Slice → LinState: fused into B and bias;
// - Slice → ReLU: swapped (ReLU commutes with a 0/1 selection);
// - Slice → Concat: the Concat reads the branch node instead, followed by a
//   block-diagonal Linear that applies the slices.
template <class S>
class PushSlices final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "5A push Slices"; }
  std::string_view explanation() const override {
    return "Slices of the branch node move past their readers (ReLU, Concat), towards the end";
  }
  int benefit() const override { return 80; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.node(s).isSlice(); });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    std::vector<std::pair<NodeId, NodeId>> linears, states, relus;  // (slice, user)
    std::vector<NodeId> concats;
    for (NodeId s : succs) {
      for (NodeId u : g.successors(s)) {
        switch (g.op(u)) {
          case Op::Linear:
            linears.emplace_back(s, u);
            break;
          case Op::LinState:
            states.emplace_back(s, u);
            break;
          case Op::ReLU:
            relus.emplace_back(s, u);
            break;
          case Op::Concat:
            if (std::find(concats.begin(), concats.end(), u) == concats.end()) concats.push_back(u);
            break;
          default:
            break;
        }
      }
    }
    for (auto [s, u] : linears) {
      const CNode<S>& sl = g.node(s);
      const CNode<S>& lin = g.node(u);
      std::vector<S> offset = multiplyAdd(lin.A, sl.b, lin.b, g.zero());
      std::string name = lin.name;
      SpMat<S> A = replacedTimes(g, u, sl.A);  // may move lin.A out: not read after this
      const NodeId fused =
          g.add(makeLinear(std::move(A), std::move(offset), std::move(name)), {branch});
      g.replaceUses(u, fused);
    }
    for (auto [s, u] : states) {
      const CNode<S>& sl = g.node(s);
      const CNode<S>& st = g.node(u);
      const NodeId fused = g.add(makeLinState(st.A, multiply(st.B, sl.A), st.init,
                                              multiplyAdd(st.B, sl.b, st.bias, g.zero()), st.name),
                                 {branch});
      g.replaceUses(u, fused);
    }
    for (auto [s, u] : relus) {
      const NodeId r = g.add(makeSimple<S>(Op::ReLU, g.dim(branch)), {branch});
      const SliceTag tag = *g.node(s).slice;
      const NodeId sl = g.add(makeSlice(g, tag.start, tag.end, g.dim(branch), g.node(u).name), {r});
      g.replaceUses(u, sl);
    }
    for (NodeId c : concats) {
      std::vector<NodeId> ins;
      std::vector<SpMat<S>> owned;
      owned.reserve(g.inputs(c).size());
      std::vector<const SpMat<S>*> blocks;
      std::vector<const std::vector<S>*> offsets;
      std::vector<std::vector<S>> zeroVecs;
      zeroVecs.reserve(g.inputs(c).size());
      for (NodeId x : g.inputs(c)) {
        const bool slicesBranch = g.node(x).isSlice() && g.input0(x) == branch;
        if (slicesBranch) {
          ins.push_back(branch);
          blocks.push_back(&g.node(x).A);
          offsets.push_back(&g.node(x).b);
        } else {
          ins.push_back(x);
          owned.push_back(SpMat<S>::identity(g.dim(x), g.one()));
          blocks.push_back(&owned.back());
          zeroVecs.push_back(zerosOf(g, g.dim(x)));
          offsets.push_back(&zeroVecs.back());
        }
      }
      int width = 0;
      for (NodeId x : ins) width += g.dim(x);
      const NodeId cat = g.add(makeSimple<S>(Op::Concat, width), std::move(ins));
      const NodeId post = g.add(
          makeLinear(blockDiagonal(blocks), concatVectors(offsets), "SliceAfterConcat"), {cat});
      g.replaceUses(c, post);
    }
  }
};

// 5A, first part: Slices of the branch node that feed Multis.
template <class S>
class SliceMultiBypass final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "5A Slice-Multi bypass"; }
  std::string_view explanation() const override {
    return "Slices feeding Multis are bypassed so that the Multis read the branch node whole";
  }
  int benefit() const override { return 90; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    if (!allOf(succs, [&](NodeId s) { return g.node(s).isSlice(); })) return false;
    for (NodeId s : succs) {
      for (NodeId u : g.successors(s)) {
        if (g.op(u) == Op::Multi) return true;
      }
    }
    return false;
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    std::vector<NodeId> multis;       // Multis after Slices
    std::vector<NodeId> otherSlices;  // Slices with a non-Multi user
    for (NodeId s : succs) {
      bool other = false;
      for (NodeId u : g.successors(s)) {
        if (g.op(u) == Op::Multi) {
          multis.push_back(u);
        } else {
          other = true;
        }
      }
      if (other) otherSlices.push_back(s);
    }
    const int d = g.dim(branch);
    const S one = g.one();
    std::vector<SpMat<S>> firsts, seconds;
    firsts.reserve(multis.size());
    seconds.reserve(multis.size());
    int half = 0;
    for (NodeId m : multis) {
      const CNode<S>& sl = g.node(g.input0(m));
      const int k = sl.dim / 2;
      firsts.push_back(sl.A.rowRange(0, k));
      seconds.push_back(sl.A.rowRange(k, 2 * k));
      half += k;
    }
    // Rows [firsts; 0 with b = 1; seconds; I]: the Multi multiplies [firsts·x; 1] by
    // [seconds·x; x], giving [the products; x].
    std::vector<const SpMat<S>*> rows;
    for (const auto& f : firsts) rows.push_back(&f);
    const SpMat<S> zeros = SpMat<S>::zeros(d, d);
    rows.push_back(&zeros);
    for (const auto& s : seconds) rows.push_back(&s);
    const SpMat<S> eye = SpMat<S>::identity(d, one);
    rows.push_back(&eye);
    std::vector<S> b = zerosOf(g, 2 * (half + d));
    for (int i = half; i < half + d; ++i) b[static_cast<size_t>(i)] = one;
    const NodeId pre = g.add(makeLinear(vstack(rows), std::move(b), "PreMulLinear"), {branch});
    const NodeId mul = g.add(makeSimple<S>(Op::Multi, half + d), {pre});
    int offset = 0;
    for (NodeId m : multis) {
      const int k = g.dim(m);
      const NodeId sl = g.add(makeSlice(g, offset, offset + k, half + d, g.node(m).name), {mul});
      g.replaceUses(m, sl);
      offset += k;
    }
    const NodeId pass = g.add(makeSlice(g, half, half + d, half + d), {mul});
    for (NodeId s : otherSlices) g.replaceInput(s, branch, pass);
  }
};

// 5B: every successor is a Linear, not all Slices: one stacked Linear followed by Slices.
template <class S>
class StackLinears final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "5B stack Linears"; }
  std::string_view explanation() const override {
    return "Linears reading the same node become one Linear with stacked rows, followed by Slices";
  }
  int benefit() const override { return 70; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return allOf(succs, [&](NodeId s) { return g.op(s) == Op::Linear; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    std::vector<const SpMat<S>*> As;
    std::vector<S> b;
    for (NodeId s : succs) b.insert(b.end(), g.node(s).b.begin(), g.node(s).b.end());
    for (size_t k = 1; k < succs.size(); ++k) As.push_back(&g.node(succs[k]).A);
    std::string name = joinedNames(g, succs);
    // Every successor is replaced by a Slice: the first one's A is moved when unshared.
    SpMat<S> first;
    if (CNode<S>* owned = g.takeIfUnique(succs.front())) {
      first = std::move(owned->A);
    } else {
      first = g.node(succs.front()).A;
    }
    const NodeId stacked = g.add(
        makeLinear(vstackOnto(std::move(first), As), std::move(b), std::move(name)), {branch});
    replaceBySlices(g, stacked, succs);
  }
};

}  // namespace lsrl::compiler
