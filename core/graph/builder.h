// The C++ builder API: a Var is a node of a Graph, with the operators of the
// paper's Python API. Every operator creates fresh nodes, exactly as docs/spec/language.md §2
// lowers them (node counts are compared with the reference implementation):
//   x + y, x - y  -> Concat([x, y]) + Linear([I, ±I])
//   x + c, x - c, c + x -> Linear(I, ±c·1);   c - x -> Linear(-I, c·1)
//   x * c, c * x, x / c -> Linear(c·I, 0)     (division by zero throws)
//   x[i], x.slice(a, b) -> Slice (a tagged Linear)
#pragma once

#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

class Var {
 public:
  Var() = default;
  Var(Graph* g, NodeId id) : g_(g), id_(id) {}

  Graph& graph() const { return *g_; }
  NodeId id() const { return id_; }
  bool valid() const { return g_ != nullptr && id_ != kNoNode; }
  int dim() const;
  const Node& node() const;
  bool alwaysPositive() const;
  Var& setAlwaysPositive(bool v = true);
  Var& named(std::string name);

  Var operator[](int i) const;          // Slice(i, i+1)
  Var slice(int start, int end) const;  // Slice(start, end)
  Var operator-() const;                // -1 * x

 private:
  Graph* g_ = nullptr;
  NodeId id_ = kNoNode;
};

Var operator+(const Var& x, const Var& y);
Var operator-(const Var& x, const Var& y);
Var operator+(const Var& x, const Exact& c);
Var operator+(const Exact& c, const Var& x);
Var operator-(const Var& x, const Exact& c);
Var operator-(const Exact& c, const Var& x);
Var operator*(const Var& x, const Exact& c);
Var operator*(const Exact& c, const Var& x);
Var operator/(const Var& x, const Exact& c);
// Overloads for integer literals, so that `x - 1` and `2 * x` read naturally.
inline Var operator+(const Var& x, int c) { return x + Exact(c); }
inline Var operator+(int c, const Var& x) { return Exact(c) + x; }
inline Var operator-(const Var& x, int c) { return x - Exact(c); }
inline Var operator-(int c, const Var& x) { return Exact(c) - x; }
inline Var operator*(const Var& x, int c) { return x * Exact(c); }
inline Var operator*(int c, const Var& x) { return Exact(c) * x; }
inline Var operator/(const Var& x, int c) { return x / Exact(c); }

// The primitives as free functions over Vars.
Var Input(Graph& g, int dim, std::string name = {});
Var Linear(const Var& x, ExactMatrix A, ExactVector b, std::string name = {});
Var ReLU(const Var& x, std::string name = {});
Var LinState(const Var& x, ExactMatrix A, ExactMatrix B, ExactVector init, ExactVector bias = {},
             std::string name = {});
Var Concat(const std::vector<Var>& xs, std::string name = {});
Var Multi(const Var& x, std::string name = {});

}  // namespace lsrl
