// The compiler's rewriting IR (docs/spec/compiler.md): a DAG of Linear / ReLU / LinState / Concat /
// Multi / Input nodes with sparse matrices in one scalar backend, edited in place by the
// fold and debranch rules.
//
// Node payloads (op, matrices, name) are immutable once created and shared (the step
// history keeps them alive); only a node's input list changes. Node ids are stable: a
// node that survives a rewrite keeps its id, new nodes get fresh ids after the largest
// one so far (never reused). Predecessor lists and successor multisets are maintained
// incrementally, and every edit is recorded into the current Step.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/compiler/sparse.h"
#include "core/graph/graph.h"
#include "core/util/error.h"

namespace lsrl::compiler {

// One recorded rewrite: the rule that fired, the branch node it worked on (kNoNode for
// folds, which name their anchor node instead), and the nodes and edges it removed and
// added. An edge is (from, to), one per input slot (a Concat reading x twice has two).
struct Step {
  std::string rule;
  NodeId branch = kNoNode;
  std::vector<NodeId> nodesRemoved;
  std::vector<NodeId> nodesAdded;
  std::vector<std::pair<NodeId, NodeId>> edgesRemoved;
  std::vector<std::pair<NodeId, NodeId>> edgesAdded;
  NodeId outputBefore = kNoNode;  // differs from outputAfter when the sink was replaced
  NodeId outputAfter = kNoNode;
  // The complete, ordered input list after the step of every surviving node whose inputs
  // the step set (new nodes included): with the payloads, enough to replay the step.
  std::vector<std::pair<NodeId, std::vector<NodeId>>> inputsSet;
};

template <class S>
struct CNode {
  Op op = Op::Input;
  int dim = 0;
  std::optional<SliceTag> slice;  // Linear only
  SpMat<S> A;                     // Linear: dim x dim(x); LinState: dim x dim
  SpMat<S> B;                     // LinState: dim x dim(x)
  std::vector<S> b;               // Linear offset
  std::vector<S> init;            // LinState s_0
  std::vector<S> bias;            // LinState bias
  std::string name;

  bool isSlice() const { return op == Op::Linear && slice.has_value(); }
};

template <class S>
using NodePtr = std::shared_ptr<const CNode<S>>;

// "Slice" for sliced Linears, else the op's name.
template <class S>
std::string_view kindName(const CNode<S>& n) {
  return n.isSlice() ? std::string_view("Slice") : opName(n.op);
}

template <class S>
class CGraph {
 public:
  explicit CGraph(Scalars<S> sc) : sc_(std::move(sc)) {}

  const Scalars<S>& scalars() const { return sc_; }
  S zero() const { return sc_.zero(); }
  S one() const { return sc_.one(); }

  // ---- queries ----
  NodeId idLimit() const { return static_cast<NodeId>(nodes_.size()); }
  bool alive(NodeId id) const {
    return id >= 0 && id < idLimit() && nodes_[static_cast<size_t>(id)] != nullptr;
  }
  const CNode<S>& node(NodeId id) const { return *nodes_[static_cast<size_t>(id)]; }
  const NodePtr<S>& nodePtr(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  Op op(NodeId id) const { return node(id).op; }
  int dim(NodeId id) const { return node(id).dim; }
  const std::vector<NodeId>& inputs(NodeId id) const { return inputs_[static_cast<size_t>(id)]; }
  NodeId input0(NodeId id) const { return inputs(id).front(); }
  // Distinct successors.
  int outDegree(NodeId id) const { return static_cast<int>(succ_[static_cast<size_t>(id)].size()); }
  // Distinct successors, ascending ids.
  std::vector<NodeId> successors(NodeId id) const {
    std::vector<NodeId> out;
    for (const auto& [s, count] : succ_[static_cast<size_t>(id)]) out.push_back(s);
    std::sort(out.begin(), out.end());
    return out;
  }
  NodeId onlySuccessor(NodeId id) const { return succ_[static_cast<size_t>(id)].front().first; }
  NodeId inputNode() const { return input_; }
  NodeId output() const { return output_; }
  size_t nodeCount() const { return alive_; }
  // Σ over live nodes of width + stored non-zeros: a cheap running measure of size.
  long long weight() const { return weight_; }
  std::vector<NodeId> aliveIds() const {
    std::vector<NodeId> out;
    for (NodeId i = 0; i < idLimit(); ++i) {
      if (alive(i)) out.push_back(i);
    }
    return out;
  }

  // The payload of a node that a rewrite is about to replace, for moving its matrices out
  // instead of copying them, or null when the payload is shared (history archive, a
  // replay, another graph). The caller must not read the moved members afterwards.
  CNode<S>* takeIfUnique(NodeId id) {
    NodePtr<S>& p = nodes_[static_cast<size_t>(id)];
    return p.use_count() == 1 ? const_cast<CNode<S>*>(p.get()) : nullptr;
  }

  // ---- edits ----
  NodeId add(CNode<S> n, std::vector<NodeId> ins) {
    // Created non-const so that takeIfUnique may hand out its matrices.
    return addShared(std::make_shared<CNode<S>>(std::move(n)), std::move(ins));
  }
  NodeId addShared(NodePtr<S> n, std::vector<NodeId> ins) {
    const NodeId id = idLimit();
    const Op o = n->op;
    if (keepArchive_) archive_.push_back(n);
    if (onAdd_) onAdd_(id, *n);
    nodeWeight_.push_back(weightOf(*n));
    weight_ += nodeWeight_.back();
    nodes_.push_back(std::move(n));
    inputs_.emplace_back();
    succ_.emplace_back();
    ++alive_;
    if (o == Op::Input) input_ = id;
    if (step_ != nullptr) step_->nodesAdded.push_back(id);
    setInputs(id, std::move(ins));
    touch(id);
    deadCandidates_.push_back(id);  // swept at the end of the step unless used by then
    return id;
  }

  // An empty id (keeps ids aligned with a source graph's).
  void addPlaceholder() {
    if (keepArchive_) archive_.push_back(nullptr);
    nodes_.push_back(nullptr);
    nodeWeight_.push_back(0);
    inputs_.emplace_back();
    succ_.emplace_back();
  }

  void setInputs(NodeId id, std::vector<NodeId> ins) {
    auto& cur = inputs_[static_cast<size_t>(id)];
    for (NodeId x : cur) {
      removeSucc(x, id);
      if (step_ != nullptr) step_->edgesRemoved.emplace_back(x, id);
    }
    cur = std::move(ins);
    for (NodeId x : cur) {
      addSucc(x, id);
      if (step_ != nullptr) step_->edgesAdded.emplace_back(x, id);
    }
    if (step_ != nullptr) step_->inputsSet.emplace_back(id, cur);
    touch(id);
  }

  // Every occurrence of `from` among id's inputs becomes `to`.
  void replaceInput(NodeId id, NodeId from, NodeId to) {
    std::vector<NodeId> ins = inputs(id);
    for (NodeId& x : ins) {
      if (x == from) x = to;
    }
    setInputs(id, std::move(ins));
  }

  // Every user of `old` reads `nu` instead; the sink moves too.
  void replaceUses(NodeId old, NodeId nu) {
    for (NodeId s : successors(old)) replaceInput(s, old, nu);
    if (output_ == old) setOutput(nu);
  }

  void setOutput(NodeId id) {
    if (output_ != kNoNode) deadCandidates_.push_back(output_);
    output_ = id;
    touch(id);
  }

  // Removes every node that no longer reaches the sink (no successors, not the sink).
  void sweep() {
    while (!deadCandidates_.empty()) {
      const NodeId id = deadCandidates_.back();
      deadCandidates_.pop_back();
      if (!alive(id) || outDegree(id) > 0 || id == output_) continue;
      std::vector<NodeId> ins = std::move(inputs_[static_cast<size_t>(id)]);
      inputs_[static_cast<size_t>(id)].clear();
      for (NodeId x : ins) {
        removeSucc(x, id);
        if (step_ != nullptr) step_->edgesRemoved.emplace_back(x, id);
      }
      weight_ -= nodeWeight_[static_cast<size_t>(id)];  // as added: matrices may be moved out
      nodes_[static_cast<size_t>(id)] = nullptr;
      --alive_;
      if (step_ != nullptr) step_->nodesRemoved.push_back(id);
    }
  }

  // Every payload ever created, by id (null for placeholders), when enabled before the
  // first node is added: the step history replays from it.
  void keepArchive(bool on) { keepArchive_ = on; }
  // Called with each node's payload as it is added, before any rule can read it: a
  // payload is never changed once added (takeIfUnique moves matrices out of replaced
  // nodes only), so this sees every payload as the history shows it.
  void onAdd(std::function<void(NodeId, const CNode<S>&)> f) { onAdd_ = std::move(f); }
  const std::vector<NodePtr<S>>& archive() const { return archive_; }

  // ---- fold work list: nodes whose own fold rules may newly apply ----
  bool hasDirty() const { return !dirty_.empty(); }
  NodeId popDirty() {
    const NodeId id = *dirty_.begin();
    dirty_.erase(dirty_.begin());
    return id;
  }
  void touchAll() {
    for (NodeId i = 0; i < idLimit(); ++i) {
      if (alive(i)) dirty_.insert(i);
    }
  }

  // ---- step recording ----
  // With record = false only dead nodes are swept at the end; nothing is logged.
  void beginStep(std::string rule, NodeId branch, bool record = true) {
    current_ = Step{};
    current_.rule = std::move(rule);
    current_.branch = branch;
    current_.outputBefore = output_;
    step_ = record ? &current_ : nullptr;
  }
  // Ends the step (sweeping dead nodes first) and returns it with node and edge lists
  // netted (a node both added and removed within the step appears in neither).
  Step endStep() {
    sweep();
    Step s = std::move(current_);
    current_ = Step{};
    s.outputAfter = output_;
    if (step_ != nullptr) {
      netOut(s.nodesAdded, s.nodesRemoved);
      netOut(s.edgesAdded, s.edgesRemoved);
      // Last list per node, for nodes alive after the step, in first-set order.
      std::vector<std::pair<NodeId, std::vector<NodeId>>> sets;
      for (auto& [id, ins] : s.inputsSet) {
        if (!alive(id)) continue;
        auto it = std::find_if(sets.begin(), sets.end(),
                               [id = id](const auto& e) { return e.first == id; });
        if (it == sets.end()) {
          sets.emplace_back(id, std::move(ins));
        } else {
          it->second = std::move(ins);
        }
      }
      s.inputsSet = std::move(sets);
    }
    step_ = nullptr;
    return s;
  }

  // The first node in Kahn order (smallest id first) with more than one distinct
  // successor, or kNoNode when the graph is a path. Everything before it in that order
  // is a chain, so this costs O(length of that chain).
  NodeId firstBranch() const {
    std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
    std::unordered_map<NodeId, int> remaining;
    ready.push(input_);
    while (!ready.empty()) {
      const NodeId u = ready.top();
      ready.pop();
      if (outDegree(u) > 1) return u;
      for (const auto& [v, count] : succ_[static_cast<size_t>(u)]) {
        auto [it, fresh] = remaining.emplace(v, 0);
        if (fresh) it->second = distinctInputs(v);
        if (--it->second == 0) ready.push(v);
      }
    }
    return kNoNode;
  }

  // Kahn order (smallest id first) of the live nodes.
  std::vector<NodeId> topologicalOrder() const {
    std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
    std::unordered_map<NodeId, int> remaining;
    std::vector<NodeId> order;
    ready.push(input_);
    while (!ready.empty()) {
      const NodeId u = ready.top();
      ready.pop();
      order.push_back(u);
      for (const auto& [v, count] : succ_[static_cast<size_t>(u)]) {
        auto [it, fresh] = remaining.emplace(v, 0);
        if (fresh) it->second = distinctInputs(v);
        if (--it->second == 0) ready.push(v);
      }
    }
    return order;
  }

 private:
  static long long weightOf(const CNode<S>& n) {
    return n.dim + static_cast<long long>(n.A.nonZeros() + n.B.nonZeros());
  }

  int distinctInputs(NodeId v) const {
    const auto& ins = inputs(v);
    if (ins.size() <= 1) return static_cast<int>(ins.size());
    std::vector<NodeId> tmp = ins;
    std::sort(tmp.begin(), tmp.end());
    return static_cast<int>(std::unique(tmp.begin(), tmp.end()) - tmp.begin());
  }

  void touch(NodeId id) {
    if (alive(id)) dirty_.insert(id);
  }
  void touchSuccessors(NodeId x) {
    for (const auto& [s, count] : succ_[static_cast<size_t>(x)]) dirty_.insert(s);
  }

  void addSucc(NodeId x, NodeId s) {
    auto& list = succ_[static_cast<size_t>(x)];
    for (auto& [id, count] : list) {
      if (id == s) {
        ++count;
        return;
      }
    }
    list.emplace_back(s, 1);
    touchSuccessors(x);
  }
  void removeSucc(NodeId x, NodeId s) {
    auto& list = succ_[static_cast<size_t>(x)];
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].first != s) continue;
      if (--list[i].second == 0) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        touchSuccessors(x);
        if (list.empty()) deadCandidates_.push_back(x);
      }
      return;
    }
  }

  template <class T>
  static void netOut(std::vector<T>& added, std::vector<T>& removed) {
    std::vector<T> a = added;
    std::vector<T> r = removed;
    std::sort(a.begin(), a.end());
    std::sort(r.begin(), r.end());
    std::vector<T> common;
    std::set_intersection(a.begin(), a.end(), r.begin(), r.end(), std::back_inserter(common));
    if (common.empty()) return;
    auto strip = [&common](std::vector<T>& v) {
      std::vector<T> c = common;  // multiset difference, keeping v's order
      std::vector<T> out;
      for (const T& x : v) {
        auto it = std::lower_bound(c.begin(), c.end(), x);
        if (it != c.end() && *it == x) {
          c.erase(it);
        } else {
          out.push_back(x);
        }
      }
      v = std::move(out);
    };
    strip(added);
    strip(removed);
  }

  Scalars<S> sc_;
  bool keepArchive_ = false;
  std::function<void(NodeId, const CNode<S>&)> onAdd_;
  std::vector<NodePtr<S>> archive_;
  std::vector<NodePtr<S>> nodes_;
  std::vector<std::vector<NodeId>> inputs_;
  std::vector<std::vector<std::pair<NodeId, int>>> succ_;
  std::set<NodeId> dirty_;
  std::vector<NodeId> deadCandidates_;
  NodeId input_ = kNoNode;
  NodeId output_ = kNoNode;
  size_t alive_ = 0;
  long long weight_ = 0;
  std::vector<long long> nodeWeight_;  // by id, at creation
  Step current_;
  Step* step_ = nullptr;
};

// ---- payload builders used by the rules ----
template <class S>
CNode<S> makeLinear(SpMat<S> A, std::vector<S> b, std::string name = {}) {
  CNode<S> n;
  n.op = Op::Linear;
  n.dim = A.rows;
  n.A = std::move(A);
  n.b = std::move(b);
  n.name = std::move(name);
  return n;
}

template <class S>
CNode<S> makeSlice(const CGraph<S>& g, int start, int end, int inDim, std::string name = {}) {
  CNode<S> n =
      makeLinear(SpMat<S>::selection(start, end, inDim, g.one()),
                 std::vector<S>(static_cast<size_t>(end - start), g.zero()), std::move(name));
  n.slice = SliceTag{start, end};
  return n;
}

template <class S>
CNode<S> makeSimple(Op op, int dim, std::string name = {}) {
  CNode<S> n;
  n.op = op;
  n.dim = dim;
  n.name = std::move(name);
  return n;
}

template <class S>
CNode<S> makeLinState(SpMat<S> A, SpMat<S> B, std::vector<S> init, std::vector<S> bias,
                      std::string name = {}) {
  CNode<S> n;
  n.op = Op::LinState;
  n.dim = A.rows;
  n.A = std::move(A);
  n.B = std::move(B);
  n.init = std::move(init);
  n.bias = std::move(bias);
  n.name = std::move(name);
  return n;
}

template <class S>
std::vector<S> zerosOf(const CGraph<S>& g, int n) {
  return std::vector<S>(static_cast<size_t>(n), g.zero());
}

template <class S>
std::vector<S> concatVectors(const std::vector<const std::vector<S>*>& parts) {
  std::vector<S> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// f_relu_identity(x) = [I, −I]·Concat([ReLU(x), ReLU(−x)]) (docs/spec/language.md §2), built in the
// same shape as the sugar: Linear(−I), two ReLUs, a Concat and the final Linear.
template <class S>
NodeId addReluIdentity(CGraph<S>& g, NodeId x) {
  const int d = g.dim(x);
  const NodeId pos = g.add(makeSimple<S>(Op::ReLU, d), {x});
  const NodeId negX = g.add(makeLinear(SpMat<S>::identity(d, -g.one()), zerosOf(g, d)), {x});
  const NodeId neg = g.add(makeSimple<S>(Op::ReLU, d), {negX});
  const NodeId both = g.add(makeSimple<S>(Op::Concat, 2 * d), {pos, neg});
  // [I, −I]
  SpMat<S> M = SpMat<S>::zeros(0, 2 * d);
  M.rows = d;
  M.rowStart.assign(1, 0);
  for (int r = 0; r < d; ++r) {
    M.col.push_back(r);
    M.val.push_back(g.one());
    M.col.push_back(d + r);
    M.val.push_back(-g.one());
    M.rowStart.push_back(static_cast<int>(M.col.size()));
  }
  return g.add(makeLinear(std::move(M), zerosOf(g, d), "relu_identity"), {both});
}

}  // namespace lsrl::compiler
