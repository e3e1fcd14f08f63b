#include "core/graph/graph.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr std::string_view kOpNames[kOpCount] = {"Input",    "Linear", "ReLU",
                                                 "LinState", "Concat", "Multi"};

std::string nodeLabel(Op op, NodeId id) {
  return std::string(opName(op)) + " node " + std::to_string(id);
}

void requireDim(bool ok, Op op, NodeId id, const std::string& what, long long expected,
                long long got) {
  if (!ok) {
    throw Error(nodeLabel(op, id) + ": " + what + " expected " + std::to_string(expected) +
                ", got " + std::to_string(got));
  }
}

void requireSize(int dim, Op op, NodeId id) {
  if (dim <= 0 || dim > kMaxNodeDim) {
    throw Error(nodeLabel(op, id) + ": width " + std::to_string(dim) + " is outside 1.." +
                std::to_string(kMaxNodeDim));
  }
}

}  // namespace

std::string_view opName(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> opFromName(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i) {
    if (kOpNames[i] == name) return static_cast<Op>(i);
  }
  if (name == "Multiplicative") return Op::Multi;
  return std::nullopt;
}

std::string_view Node::countedOpName() const { return isSlice() ? "Slice" : opName(op); }

const Node& Graph::node(NodeId id) const {
  if (id < 0 || static_cast<size_t>(id) >= nodes_.size()) {
    throw Error("no node with id " + std::to_string(id) + " (the graph has " +
                std::to_string(nodes_.size()) + " nodes)");
  }
  const Node& n = nodes_[static_cast<size_t>(id)];
  if (n.removed) throw Error("node " + std::to_string(id) + " was deleted");
  return n;
}

bool Graph::contains(NodeId id) const {
  return id >= 0 && static_cast<size_t>(id) < nodes_.size() &&
         !nodes_[static_cast<size_t>(id)].removed;
}

bool Graph::containsGroup(GroupId id) const {
  return id >= 0 && static_cast<size_t>(id) < groups_.size() &&
         !groups_[static_cast<size_t>(id)].removed;
}

size_t Graph::liveNodeCount() const {
  return static_cast<size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.removed; }));
}

Node& Graph::mutableNode(NodeId id) { return const_cast<Node&>(std::as_const(*this).node(id)); }

NodeId Graph::appendNode(Node n) {
  n.id = static_cast<NodeId>(nodes_.size());
  if (n.group == kNoGroup && !openGroups_.empty()) n.group = openGroups_.back();
  for (GroupId g : openGroups_) groups_[static_cast<size_t>(g)].nodes.push_back(n.id);
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

NodeId Graph::addUnchecked(Node n) {
  if (n.id != static_cast<NodeId>(nodes_.size())) {
    throw Error("node ids must be consecutive from 0: expected id " +
                std::to_string(nodes_.size()) + ", got " + std::to_string(n.id));
  }
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

NodeId Graph::addInput(int dim, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  requireSize(dim, Op::Input, next);
  if (input() != kNoNode) {
    throw Error("Input node " + std::to_string(next) + ": a program has exactly one Input, node " +
                std::to_string(input()) + " is already one");
  }
  Node n;
  n.op = Op::Input;
  n.dim = dim;
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addLinear(NodeId x, ExactMatrix A, ExactVector b, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  const Node& in = node(x);
  requireSize(A.rows(), Op::Linear, next);
  requireDim(A.cols() == in.dim, Op::Linear, next,
             "A columns (input width of node " + std::to_string(x) + ")", in.dim, A.cols());
  if (b.empty()) b = zerosVector(A.rows());
  requireDim(static_cast<int>(b.size()) == A.rows(), Op::Linear, next, "b length", A.rows(),
             static_cast<long long>(b.size()));
  Node n;
  n.op = Op::Linear;
  n.dim = A.rows();
  n.inputs = {x};
  n.A = std::move(A);
  n.b = std::move(b);
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addSlice(NodeId x, int start, int end, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  const int width = node(x).dim;
  if (start < 0 || end > width || start >= end) {
    throw Error("Slice node " + std::to_string(next) + ": range [" + std::to_string(start) + ":" +
                std::to_string(end) + "] is out of range for input node " + std::to_string(x) +
                " of width " + std::to_string(width) +
                " (need 0 <= start < end <= " + std::to_string(width) + ")");
  }
  Node n;
  n.op = Op::Linear;
  n.dim = end - start;
  n.inputs = {x};
  n.slice = SliceTag{start, end};
  n.A = ExactMatrix::selection(start, end, width);
  n.b = zerosVector(end - start);
  n.alwaysPositive = node(x).alwaysPositive;
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addReLU(NodeId x, std::string name) {
  Node n;
  n.op = Op::ReLU;
  n.dim = node(x).dim;
  n.inputs = {x};
  n.alwaysPositive = true;
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addLinState(NodeId x, ExactMatrix A, ExactMatrix B, ExactVector init,
                          ExactVector bias, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  const int inDim = node(x).dim;
  const int d = A.rows();
  requireSize(d, Op::LinState, next);
  requireDim(A.cols() == d, Op::LinState, next, "A must be square: A columns", d, A.cols());
  requireDim(B.rows() == d, Op::LinState, next, "B rows", d, B.rows());
  requireDim(B.cols() == inDim, Op::LinState, next,
             "B columns (input width of node " + std::to_string(x) + ")", inDim, B.cols());
  if (init.empty()) init = zerosVector(d);
  if (bias.empty()) bias = zerosVector(d);
  requireDim(static_cast<int>(init.size()) == d, Op::LinState, next, "init_state length", d,
             static_cast<long long>(init.size()));
  requireDim(static_cast<int>(bias.size()) == d, Op::LinState, next, "bias length", d,
             static_cast<long long>(bias.size()));
  Node n;
  n.op = Op::LinState;
  n.dim = d;
  n.inputs = {x};
  n.A = std::move(A);
  n.B = std::move(B);
  n.init = std::move(init);
  n.bias = std::move(bias);
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addConcat(std::vector<NodeId> xs, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  if (xs.empty()) {
    throw Error("Concat node " + std::to_string(next) + ": needs at least one input, got none");
  }
  long long dim = 0;
  bool positive = true;
  for (NodeId x : xs) {
    dim += node(x).dim;
    positive = positive && node(x).alwaysPositive;
  }
  if (dim > kMaxNodeDim) requireSize(kMaxNodeDim + 1, Op::Concat, next);
  Node n;
  n.op = Op::Concat;
  n.dim = static_cast<int>(dim);
  n.inputs = std::move(xs);
  n.alwaysPositive = positive;
  n.name = std::move(name);
  return appendNode(std::move(n));
}

NodeId Graph::addMulti(NodeId x, std::string name) {
  const NodeId next = static_cast<NodeId>(nodes_.size());
  const int w = node(x).dim;
  if (w % 2 != 0) {
    throw Error("Multi node " + std::to_string(next) + ": input node " + std::to_string(x) +
                " has odd width " + std::to_string(w) + ", expected an even width 2k");
  }
  Node n;
  n.op = Op::Multi;
  n.dim = w / 2;
  n.inputs = {x};
  n.name = std::move(name);
  return appendNode(std::move(n));
}

void Graph::setOutput(NodeId id) {
  if (id != kNoNode) node(id);  // validates
  output_ = id;
}

NodeId Graph::input() const {
  for (const Node& n : nodes_) {
    if (n.op == Op::Input && !n.removed) return n.id;
  }
  return kNoNode;
}

std::vector<std::vector<NodeId>> Graph::successors() const {
  std::vector<std::vector<NodeId>> succ(nodes_.size());
  for (const Node& n : nodes_) {
    for (NodeId p : n.inputs) {
      if (!contains(p)) continue;
      auto& s = succ[static_cast<size_t>(p)];
      if (s.empty() || s.back() != n.id) s.push_back(n.id);
    }
  }
  return succ;
}

std::vector<NodeId> Graph::programNodes() const {
  if (!contains(output_)) return {};
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<NodeId> stack{output_};
  seen[static_cast<size_t>(output_)] = 1;
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    for (NodeId p : nodes_[static_cast<size_t>(id)].inputs) {
      if (!contains(p) || seen[static_cast<size_t>(p)]) continue;
      seen[static_cast<size_t>(p)] = 1;
      stack.push_back(p);
    }
  }
  std::vector<NodeId> out;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i]) out.push_back(static_cast<NodeId>(i));
  }
  return out;
}

std::vector<NodeId> Graph::topologicalOrder() const {
  const std::vector<NodeId> program = programNodes();
  std::vector<char> inProgram(nodes_.size(), 0);
  for (NodeId id : program) inProgram[static_cast<size_t>(id)] = 1;
  std::vector<int> pending(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> succ(nodes_.size());
  for (NodeId id : program) {
    const Node& n = nodes_[static_cast<size_t>(id)];
    std::vector<NodeId> preds = n.inputs;
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (NodeId p : preds) {
      if (!contains(p)) continue;
      ++pending[static_cast<size_t>(id)];
      succ[static_cast<size_t>(p)].push_back(id);
    }
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId id : program) {
    if (pending[static_cast<size_t>(id)] == 0) ready.push(id);
  }
  std::vector<NodeId> order;
  order.reserve(program.size());
  while (!ready.empty()) {
    const NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (NodeId s : succ[static_cast<size_t>(id)]) {
      if (--pending[static_cast<size_t>(s)] == 0) ready.push(s);
    }
  }
  if (order.size() != program.size()) {
    std::vector<NodeId> stuck;
    for (NodeId id : program) {
      if (pending[static_cast<size_t>(id)] > 0) stuck.push_back(id);
    }
    std::string list;
    for (size_t i = 0; i < stuck.size() && i < 10; ++i) {
      list += (i ? ", " : "") + std::to_string(stuck[i]);
    }
    throw Error("the graph has a cycle through node(s) " + list +
                (stuck.size() > 10 ? ", ..." : ""));
  }
  return order;
}

GroupId Graph::openGroup(std::string function,
                         std::vector<std::pair<std::string, std::string>> params) {
  Group g;
  g.id = static_cast<GroupId>(groups_.size());
  g.function = std::move(function);
  g.params = std::move(params);
  g.parent = openGroups_.empty() ? kNoGroup : openGroups_.back();
  groups_.push_back(std::move(g));
  openGroups_.push_back(groups_.back().id);
  return groups_.back().id;
}

void Graph::closeGroup(GroupId id, NodeId output) {
  if (openGroups_.empty() || openGroups_.back() != id) {
    throw Error("group " + std::to_string(id) + " closed out of order");
  }
  openGroups_.pop_back();
  groups_[static_cast<size_t>(id)].output = output;
}

GroupId Graph::addGroupUnchecked(Group group) {
  group.id = static_cast<GroupId>(groups_.size());
  groups_.push_back(std::move(group));
  return groups_.back().id;
}

void Graph::setName(NodeId id, std::string name) { mutableNode(id).name = std::move(name); }

NodeId Graph::findByName(std::string_view name) const {
  for (const Node& n : nodes_) {
    if (n.name == name && !n.removed) return n.id;
  }
  return kNoNode;
}

int Graph::conductor() const {
  int n = 4;
  auto vec = [&n](const ExactVector& v) {
    for (const Exact& x : v) n = std::lcm(n, x.conductor());
  };
  for (const Node& node : nodes_) {
    n = std::lcm(n, node.A.conductor());
    n = std::lcm(n, node.B.conductor());
    vec(node.b);
    vec(node.init);
    vec(node.bias);
  }
  return n;
}

GroupScope::GroupScope(Graph& g, std::string function,
                       std::vector<std::pair<std::string, std::string>> params)
    : g_(g), id_(g.openGroup(std::move(function), std::move(params))) {}

GroupScope::~GroupScope() {
  if (!done_) {
    try {
      g_.closeGroup(id_, kNoNode);
    } catch (...) {
    }
  }
}

NodeId GroupScope::finish(NodeId output) {
  done_ = true;
  g_.closeGroup(id_, output);
  return output;
}

}  // namespace lsrl
