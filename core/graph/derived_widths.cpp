#include "core/graph/derived_widths.h"

#include <deque>
#include <utility>

namespace lsrl {

namespace {

const Node* producer(const Graph& g, NodeId id) { return g.contains(id) ? &g.node(id) : nullptr; }

void resizeVector(ExactVector& v, int n) {
  if (static_cast<int>(v.size()) != n) v.resize(static_cast<size_t>(n));
}

// The node as it should be given its inputs' current widths.
Node derived(const Graph& g, const Node& n) {
  Node d = n;
  const Node* in = n.inputs.empty() ? nullptr : producer(g, n.inputs[0]);
  switch (n.op) {
    case Op::Input:
      break;
    case Op::ReLU:
      if (in != nullptr) d.dim = in->dim;
      break;
    case Op::Multi:
      if (in != nullptr) d.dim = in->dim / 2;
      break;
    case Op::Concat: {
      // An open slot (a sugar call's operand not wired yet) has no width to add: the
      // Concat keeps the width it has until every slot is wired.
      int sum = 0;
      for (NodeId x : n.inputs) {
        const Node* p = producer(g, x);
        if (p == nullptr && x == kNoNode) return d;
        if (p != nullptr) sum += p->dim;
      }
      d.dim = sum;
      break;
    }
    case Op::Linear:
      if (n.slice) {
        const SliceTag s = *n.slice;
        d.dim = s.end - s.start;
        const bool plain =
            in == nullptr || n.A == ExactMatrix::selection(s.start, s.end, n.A.cols());
        if (in != nullptr && plain && s.start >= 0 && s.start < s.end && s.end <= in->dim) {
          d.A = ExactMatrix::selection(s.start, s.end, in->dim);
        }
      } else {
        d.dim = n.A.rows();
      }
      resizeVector(d.b, d.dim);
      break;
    case Op::LinState:
      d.dim = n.A.rows();
      resizeVector(d.init, d.dim);
      resizeVector(d.bias, d.dim);
      break;
  }
  return d;
}

bool sameShape(const Node& a, const Node& b) {
  return a.dim == b.dim && a.A.cols() == b.A.cols() && a.b.size() == b.b.size() &&
         a.init.size() == b.init.size() && a.bias.size() == b.bias.size();
}

}  // namespace

void rederiveWidths(Graph& g, const std::vector<NodeId>& seeds,
                    const std::function<void(NodeId)>& willChange) {
  const auto successors = g.successors();
  std::deque<NodeId> queue;
  std::vector<char> queued(g.nodeCount(), 0);
  std::vector<char> isSeed(g.nodeCount(), 0);
  for (NodeId s : seeds) {
    if (producer(g, s) != nullptr) isSeed[static_cast<size_t>(s)] = 1;
    if (producer(g, s) != nullptr && !queued[static_cast<size_t>(s)]) {
      queued[static_cast<size_t>(s)] = 1;
      queue.push_back(s);
    }
  }
  // Each node's width depends only on its inputs', so on an acyclic graph a node is
  // revisited only when an input changed; the budget stops a cycle from looping.
  size_t budget = 4 * g.nodeCount() + seeds.size();
  while (!queue.empty() && budget-- > 0) {
    const NodeId id = queue.front();
    queue.pop_front();
    queued[static_cast<size_t>(id)] = 0;
    const Node& current = g.node(id);
    Node next = derived(g, current);
    const bool widthChanged = next.dim != current.dim;
    if (!sameShape(next, current) || !(next.A == current.A)) {
      if (willChange) willChange(id);
      g.mutableNode(id) = std::move(next);
    }
    if (!widthChanged && !isSeed[static_cast<size_t>(id)]) continue;
    isSeed[static_cast<size_t>(id)] = 0;  // a seed's readers are visited once for its own sake
    for (NodeId s : successors[static_cast<size_t>(id)]) {
      if (!queued[static_cast<size_t>(s)]) {
        queued[static_cast<size_t>(s)] = 1;
        queue.push_back(s);
      }
    }
  }
}

}  // namespace lsrl
