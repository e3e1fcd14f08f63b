// What the debranching player knows of a finished compile, computed once on the worker
// thread after it (Qt-free): where each node that ever lived is drawn, how to undo each
// step, the node and branch counts after every step; and a cursor that moves the graph
// from one step to another by applying the recorded step diffs forward or backward, so
// that scrubbing never replays the compile from the start (CompileHistory::graphAt does).
// Everything is keyed by the compiler's IR node ids, which never get reused.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/compiler/ir.h"

namespace lsrl::studio {

// The light part of a node's payload (the matrices come from CompileHistory::payload on
// demand: converting them is the costly part).
struct ReplayNodeInfo {
  bool exists = false;  // false: an id that never held a node
  Op op = Op::Input;
  bool slice = false;
  int dim = 0;
  std::string name;
};

struct ReplayData {
  std::vector<compiler::Step> steps;
  std::shared_ptr<const CompileHistory> history;
  // Per step: the input lists, before the step, of every node the step re-wired or
  // removed (undoing the step restores them).
  std::vector<std::vector<std::pair<NodeId, std::vector<NodeId>>>> inputsBefore;
  std::vector<ReplayNodeInfo> info;     // per IR id
  std::vector<NodePosition> positions;  // per IR id: fixed once the node first appears
  std::vector<int> nodeCounts;          // after k steps, k = 0..stepCount
  std::vector<int> branchCounts;        // nodes with more than one reader, per step
  std::vector<std::string> firedRules;  // each rule that fired, in order of first firing
  std::vector<char> alive0;             // the graph the compile started from
  std::vector<std::vector<NodeId>> inputs0;
  NodeId output0 = kNoNode;

  size_t stepCount() const { return steps.size(); }
  size_t idLimit() const { return info.size(); }
};

// Builds the replay of a compile made with replayableHistory. `layout` places the
// program's nodes (the compile keeps program node ids). The nodes a step adds take the
// places of the nodes it removed first; the others, and program nodes without a
// position, go one layer right of their inputs (or left of their readers) at their
// inputs' height, moved down to the first free slot. Placing a node
// costs O(1), not a layout of the graph: the whole pass takes milliseconds.
std::shared_ptr<const ReplayData> buildReplay(const CompileResult& result,
                                              const std::map<NodeId, NodePosition>& layout);

// The graph after some number of steps, in IR ids.
class StepCursor {
 public:
  explicit StepCursor(std::shared_ptr<const ReplayData> data);

  size_t step() const { return step_; }
  // Applies the steps between here and `k` (k is clamped to the step count) and appends
  // to `touched` every id whose presence or inputs changed (with repeats).
  void moveTo(size_t k, std::vector<NodeId>* touched);

  bool alive(NodeId id) const { return alive_[static_cast<size_t>(id)] != 0; }
  const std::vector<NodeId>& inputs(NodeId id) const { return inputs_[static_cast<size_t>(id)]; }
  NodeId output() const { return output_; }
  std::vector<NodeId> aliveIds() const;
  // Distinct alive readers of every id (0 for dead ids).
  std::vector<int> readerCounts() const;
  const ReplayData& data() const { return *data_; }

 private:
  void forward(std::vector<NodeId>* touched);
  void backward(std::vector<NodeId>* touched);

  std::shared_ptr<const ReplayData> data_;
  size_t step_ = 0;
  std::vector<char> alive_;
  std::vector<std::vector<NodeId>> inputs_;
  NodeId output_ = kNoNode;
};

}  // namespace lsrl::studio
