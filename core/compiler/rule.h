// The rewrite-rule interface of the compiler (in the spirit of MLIR's RewritePattern):
// each rule is a small object with a match and a rewrite; the driver (driver.h) picks
// which one fires and records the step.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiler/ir.h"

namespace lsrl::compiler {

// What every rule carries beside its logic: its id (the name steps record and
// --disable-rule takes), one sentence saying what it does (the player shows it), and its
// benefit: of the rules that match, the one with the highest benefit fires
// (docs/spec/compiler.md §2).
class RuleIdentity {
 public:
  virtual ~RuleIdentity() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view explanation() const = 0;
  virtual int benefit() const = 0;
};

// A fold rule looks at one node and its predecessor (docs/compiler.md, F1–F4).
template <class S>
class FoldRule : public RuleIdentity {
 public:
  virtual bool match(const CGraph<S>& g, NodeId n) const = 0;
  virtual void rewrite(CGraph<S>& g, NodeId n) const = 0;
};

// A debranch rule looks at a branch node and its distinct successors (ascending ids).
template <class S>
class DebranchRule : public RuleIdentity {
 public:
  virtual bool match(const CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const = 0;
  virtual void rewrite(CGraph<S>& g, NodeId branch, const std::vector<NodeId>& succs) const = 0;
};

// Rules in the order they are tried: highest benefit first, ties in the given order.
template <class Rule>
std::vector<std::unique_ptr<Rule>> byBenefit(std::vector<std::unique_ptr<Rule>> rules) {
  std::stable_sort(rules.begin(), rules.end(),
                   [](const auto& a, const auto& b) { return a->benefit() > b->benefit(); });
  return rules;
}

// ---- small predicates shared by the rules ----
template <class S>
bool isOp(const CGraph<S>& g, NodeId id, Op op) {
  return g.op(id) == op;
}
template <class S>
bool isSliceNode(const CGraph<S>& g, NodeId id) {
  return g.node(id).isSlice();
}
template <class Pred>
bool allOf(const std::vector<NodeId>& ids, Pred p) {
  for (NodeId id : ids) {
    if (!p(id)) return false;
  }
  return true;
}
template <class Pred>
bool anyOf(const std::vector<NodeId>& ids, Pred p) {
  for (NodeId id : ids) {
    if (p(id)) return true;
  }
  return false;
}
// node(n).A · b for a node n that the rewrite replaces: when b is a selection and n's
// payload is not shared, n's A is moved and its columns shifted instead of copied.
template <class S>
SpMat<S> replacedTimes(CGraph<S>& g, NodeId n, const SpMat<S>& b) {
  const int start = selectionStart(b);
  if (start >= 0) {
    if (CNode<S>* owned = g.takeIfUnique(n)) {
      SpMat<S> m = std::move(owned->A);
      m.cols = b.cols;
      if (start != 0) {
        for (int& c : m.col) c += start;
      }
      return m;
    }
  }
  return multiply(g.node(n).A, b);
}

// Some successor has this op.
template <class S>
bool has(const CGraph<S>& g, const std::vector<NodeId>& ids, Op op) {
  return anyOf(ids, [&](NodeId id) { return g.op(id) == op; });
}
// A Linear whose only successor is a ReLU (cases 7A, 7B, 10).
template <class S>
bool linearFeedsOneReLU(const CGraph<S>& g, NodeId id) {
  return g.op(id) == Op::Linear && g.outDegree(id) == 1 && g.op(g.onlySuccessor(id)) == Op::ReLU;
}

}  // namespace lsrl::compiler
