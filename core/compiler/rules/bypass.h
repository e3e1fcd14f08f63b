// Debranch cases 6–10 (docs/spec/compiler.md): mixed successors, made uniform by routing some of
// them through a pass-through node (a later step then merges the uniform successors).
// Each mixed case requires every kind it names to be present (with all rules enabled the
// order of the cases implies it; with some disabled it keeps a case from looping).
#pragma once

#include "core/compiler/rule.h"

namespace lsrl::compiler {

// An identity Linear on x.
template <class S>
NodeId addIdentityLinear(CGraph<S>& g, NodeId x) {
  const int d = g.dim(x);
  return g.add(makeLinear(SpMat<S>::identity(d, g.one()), zerosOf(g, d), "Pass"), {x});
}

// 6: some LinState among other nodes: the others read a pass-through LinState
// (A = 0, B = I, init 0, bias 0); case 2 then merges the states.
template <class S>
class PassThroughState final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "6 LinState pass-through"; }
  std::string_view explanation() const override {
    return "the other readers read a pass-through LinState, so that case 2 merges the states";
  }
  int benefit() const override { return 60; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return anyOf(succs, [&](NodeId s) { return g.op(s) == Op::LinState; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const int d = g.dim(branch);
    const NodeId pass = g.add(makeLinState(SpMat<S>::zeros(d, d), SpMat<S>::identity(d, g.one()),
                                           zerosOf(g, d), zerosOf(g, d), "Pass"),
                              {branch});
    for (NodeId s : succs) {
      if (g.op(s) != Op::LinState) g.replaceInput(s, branch, pass);
    }
  }
};

// 7A: only ReLUs and Linears that each feed exactly one ReLU: the ReLUs read an identity
// Linear; then 5B stacks the Linears and 3 merges the ReLUs.
template <class S>
class BypassReLUs final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "7A Linear-ReLU: bypass ReLUs"; }
  std::string_view explanation() const override {
    return "the ReLUs read an identity Linear, so that 5B stacks the Linears and 3 merges the "
           "ReLUs";
  }
  int benefit() const override { return 50; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return has(g, succs, Op::ReLU) && has(g, succs, Op::Linear) &&
           allOf(succs, [&](NodeId s) { return g.op(s) == Op::ReLU || linearFeedsOneReLU(g, s); });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId pass = addIdentityLinear(g, branch);
    for (NodeId s : succs) {
      if (g.op(s) == Op::ReLU) g.replaceInput(s, branch, pass);
    }
  }
};

// 7B: only ReLUs and Linears otherwise: the Linears not feeding exactly one ReLU read an
// f_relu_identity bypass, which reaches 7A.
template <class S>
class BypassLinearsRelu final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "7B Linear-ReLU: bypass Linears"; }
  std::string_view explanation() const override {
    return "Linears not feeding exactly one ReLU read a ReLU identity bypass, which reaches 7A";
  }
  int benefit() const override { return 40; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return has(g, succs, Op::ReLU) && has(g, succs, Op::Linear) &&
           allOf(succs, [&](NodeId s) { return g.op(s) == Op::ReLU || g.op(s) == Op::Linear; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId pass = addReluIdentity(g, branch);
    for (NodeId s : succs) {
      if (g.op(s) == Op::Linear && !linearFeedsOneReLU(g, s)) g.replaceInput(s, branch, pass);
    }
  }
};

// 8: only Linears and Concats: the Concats read an identity Linear.
template <class S>
class BypassConcatsLinear final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "8 Linear-Concat: bypass Concats"; }
  std::string_view explanation() const override { return "the Concats read an identity Linear"; }
  int benefit() const override { return 30; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return has(g, succs, Op::Linear) && has(g, succs, Op::Concat) &&
           allOf(succs, [&](NodeId s) { return g.op(s) == Op::Linear || g.op(s) == Op::Concat; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId pass = addIdentityLinear(g, branch);
    for (NodeId s : succs) {
      if (g.op(s) == Op::Concat) g.replaceInput(s, branch, pass);
    }
  }
};

// 9: only ReLUs and Concats: the Concats read an f_relu_identity bypass.
template <class S>
class BypassConcatsRelu final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "9 ReLU-Concat: bypass Concats"; }
  std::string_view explanation() const override {
    return "the Concats read a ReLU identity bypass";
  }
  int benefit() const override { return 20; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return has(g, succs, Op::ReLU) && has(g, succs, Op::Concat) &&
           allOf(succs, [&](NodeId s) { return g.op(s) == Op::ReLU || g.op(s) == Op::Concat; });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    const NodeId pass = addReluIdentity(g, branch);
    for (NodeId s : succs) {
      if (g.op(s) == Op::Concat) g.replaceInput(s, branch, pass);
    }
  }
};

// 10: Linears, ReLUs and Concats: the Concats, and the Linears whose only successor is
// not a ReLU, read an f_relu_identity bypass.
template <class S>
class BypassMixed final : public DebranchRule<S> {
 public:
  std::string_view name() const override { return "10 Linear-ReLU-Concat: bypass"; }
  std::string_view explanation() const override {
    return "the Concats, and Linears not feeding a ReLU, read a ReLU identity bypass";
  }
  int benefit() const override { return 10; }
  bool match(const CGraph<S>& g, NodeId, const std::vector<NodeId>& succs) const override {
    return has(g, succs, Op::Linear) && has(g, succs, Op::ReLU) && has(g, succs, Op::Concat) &&
           allOf(succs, [&](NodeId s) {
             return g.op(s) == Op::Linear || g.op(s) == Op::ReLU || g.op(s) == Op::Concat;
           });
  }
  void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const override {
    // Decide which Linears move before adding the bypass (it changes no successor counts
    // of the Linears, but keep the decision on the graph as matched).
    std::vector<NodeId> moving;
    for (NodeId s : succs) {
      if (g.op(s) == Op::Concat) {
        moving.push_back(s);
      } else if (g.op(s) == Op::Linear && g.outDegree(s) == 1 &&
                 g.op(g.onlySuccessor(s)) != Op::ReLU) {
        moving.push_back(s);
      }
    }
    const NodeId pass = addReluIdentity(g, branch);
    for (NodeId s : moving) g.replaceInput(s, branch, pass);
  }
};

}  // namespace lsrl::compiler
