// A plain sparse evaluator of the compiler's IR (ForEach semantics, docs/spec/language.md §1), in
// the IR's backend and without the CPU executor's size limits: the reference against which compiled
// paths of any size are checked (tests), not a fast runtime.
#pragma once

#include <vector>

#include "core/compiler/ir.h"

namespace lsrl::compiler {

template <class S>
std::vector<std::vector<S>> evaluate(const CGraph<S>& g,
                                     const std::vector<std::vector<S>>& tokens) {
  const std::vector<NodeId> order = g.topologicalOrder();
  const Scalars<S>& sc = g.scalars();
  std::vector<std::vector<S>> value(static_cast<size_t>(g.idLimit()));
  for (NodeId id : order) {
    if (g.op(id) == Op::LinState) value[static_cast<size_t>(id)] = g.node(id).init;
  }
  std::vector<std::vector<S>> out;
  for (const auto& token : tokens) {
    if (static_cast<int>(token.size()) != g.dim(g.inputNode()))
      throw Error("evaluate: token width mismatch");
    for (NodeId id : order) {
      const CNode<S>& n = g.node(id);
      auto& v = value[static_cast<size_t>(id)];
      const auto in = [&](size_t k) -> const std::vector<S>& {
        return value[static_cast<size_t>(g.inputs(id)[k])];
      };
      switch (n.op) {
        case Op::Input:
          v = token;
          break;
        case Op::Linear:
          v = multiplyAdd(n.A, in(0), n.b, sc.zero());
          break;
        case Op::ReLU:
          v = in(0);
          for (S& x : v) {
            if (sc.sign(x) < 0) x = sc.zero();
          }
          break;
        case Op::LinState: {
          std::vector<S> next = multiplyAdd(n.A, v, n.bias, sc.zero());
          v = multiplyAdd(n.B, in(0), next, sc.zero());
          break;
        }
        case Op::Concat: {
          std::vector<S> cat;
          for (size_t k = 0; k < g.inputs(id).size(); ++k)
            cat.insert(cat.end(), in(k).begin(), in(k).end());
          v = std::move(cat);
          break;
        }
        case Op::Multi: {
          const auto& x = in(0);
          const size_t h = x.size() / 2;
          v.clear();
          for (size_t i = 0; i < h; ++i) v.push_back(x[i] * x[h + i]);
          break;
        }
      }
    }
    out.push_back(value[static_cast<size_t>(g.output())]);
  }
  return out;
}

}  // namespace lsrl::compiler
