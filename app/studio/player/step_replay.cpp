#include "app/studio/player/step_replay.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_map>

#include "app/layout/item_size.h"

namespace lsrl::studio {

namespace {

// One cell per node box plus the gaps around it: new nodes are placed on this grid.
constexpr double kCellWidth = kNodeWidth + kLayerGap;
constexpr double kCellHeight = kNodeHeight + kSiblingGap;

// Which grid cells hold a box, so a new node finds a free slot in O(1) per try.
class Occupancy {
 public:
  void add(const NodePosition& p, int delta) {
    const long long c0 = col(p.x - kNodeWidth / 2), c1 = col(p.x + kNodeWidth / 2);
    const long long r0 = row(p.y - kNodeHeight / 2), r1 = row(p.y + kNodeHeight / 2);
    for (long long c = c0; c <= c1; ++c) {
      for (long long r = r0; r <= r1; ++r) {
        int& n = cells_[key(c, r)];
        n += delta;
        if (n <= 0) cells_.erase(key(c, r));
      }
    }
  }
  // The centre of the free cell nearest below (then above) the one holding `want`.
  NodePosition freeSlot(const NodePosition& want) const {
    const long long c = col(want.x), r = row(want.y);
    for (long long d = 0;; ++d) {
      for (long long rr : {r + d, r - d}) {
        if (!cells_.contains(key(c, rr))) return {(c + 0.5) * kCellWidth, (rr + 0.5) * kCellHeight};
      }
    }
  }

 private:
  static long long col(double x) { return static_cast<long long>(std::floor(x / kCellWidth)); }
  static long long row(double y) { return static_cast<long long>(std::floor(y / kCellHeight)); }
  static uint64_t key(long long c, long long r) {
    return (static_cast<uint64_t>(c + (1LL << 31)) << 32) ^ static_cast<uint64_t>(r + (1LL << 31));
  }
  std::unordered_map<uint64_t, int> cells_;
};

std::vector<NodeId> distinct(std::vector<NodeId> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// The replayed graph while building: presence, inputs, distinct readers and the number
// of branch nodes, kept up to date by each change.
struct LiveGraph {
  std::vector<char> alive;
  std::vector<std::vector<NodeId>> inputs;
  std::vector<int> readers;
  int nodes = 0;
  int branches = 0;

  bool isBranch(NodeId id) const { return alive[id] && readers[id] > 1; }
  void countReads(NodeId id, int delta) {
    for (NodeId in : distinct(inputs[id])) {
      if (in < 0 || static_cast<size_t>(in) >= readers.size()) continue;
      const bool before = isBranch(in);
      readers[in] += delta;
      branches += static_cast<int>(isBranch(in)) - static_cast<int>(before);
    }
  }
  void setInputs(NodeId id, std::vector<NodeId> ins) {
    if (alive[id]) countReads(id, -1);
    inputs[id] = std::move(ins);
    if (alive[id]) countReads(id, +1);
  }
  void setAlive(NodeId id, bool on) {
    if (static_cast<bool>(alive[id]) == on) return;
    if (!on) countReads(id, -1);
    const bool before = isBranch(id);
    alive[id] = on;
    nodes += on ? 1 : -1;
    branches += static_cast<int>(isBranch(id)) - static_cast<int>(before);
    if (on) countReads(id, +1);
  }
};

}  // namespace

std::shared_ptr<const ReplayData> buildReplay(const CompileResult& result,
                                              const std::map<NodeId, NodePosition>& layout) {
  if (!result.history) throw Error("the player needs a compile with replayableHistory");
  auto d = std::make_shared<ReplayData>();
  const CompileHistory& h = *result.history;
  d->history = result.history;
  d->steps = result.steps;
  if (d->steps.size() != h.stepCount())
    throw Error("the player needs the step records (recordHistory): got " +
                std::to_string(d->steps.size()) + " of " + std::to_string(h.stepCount()));
  const size_t n = h.idLimit();
  d->info.resize(n);
  for (size_t id = 0; id < n; ++id) {
    if (std::optional<Node> p = h.payload(static_cast<NodeId>(id))) {
      d->info[id] = {true, p->op, p->isSlice(), p->dim, p->name};
    }
  }
  d->alive0.assign(n, 0);
  d->inputs0.assign(n, {});
  for (auto& [id, ins] : h.initialInputs()) {
    d->alive0[static_cast<size_t>(id)] = 1;
    d->inputs0[static_cast<size_t>(id)] = ins;
  }
  d->output0 = h.initialOutput();

  LiveGraph g;
  g.alive.assign(n, 0);
  g.inputs.assign(n, {});
  g.readers.assign(n, 0);
  for (size_t id = 0; id < n; ++id) g.setInputs(static_cast<NodeId>(id), d->inputs0[id]);
  for (size_t id = 0; id < n; ++id) {
    if (d->alive0[id]) g.setAlive(static_cast<NodeId>(id), true);
  }

  d->positions.assign(n, {});
  std::vector<char> placed(n, 0);
  Occupancy occupied;
  for (size_t id = 0; id < n; ++id) {
    auto it = layout.find(static_cast<NodeId>(id));
    if (d->alive0[id] && it != layout.end()) {
      d->positions[id] = it->second;
      placed[id] = 1;
      occupied.add(it->second, +1);
    }
  }
  // One layer right of the placed inputs, else left of the placed readers, else next to
  // `fallback`; then the nearest free cell.
  auto place = [&](NodeId id, const std::vector<NodeId>& readersOf, NodePosition fallback) {
    double x = 0, ySum = 0;
    int count = 0;
    for (NodeId in : g.inputs[id]) {
      if (in < 0 || !placed[in]) continue;
      x = count == 0 ? d->positions[in].x : std::max(x, d->positions[in].x);
      ySum += d->positions[in].y;
      ++count;
    }
    NodePosition want = fallback;
    if (count > 0) {
      want = {x + kCellWidth, ySum / count};
    } else {
      for (NodeId r : readersOf) {
        if (!placed[r]) continue;
        x = count == 0 ? d->positions[r].x : std::min(x, d->positions[r].x);
        ySum += d->positions[r].y;
        ++count;
      }
      if (count > 0) want = {x - kCellWidth, ySum / count};
    }
    d->positions[id] = occupied.freeSlot(want);
    placed[id] = 1;
    occupied.add(d->positions[id], +1);
  };
  for (size_t id = 0; id < n; ++id) {
    if (d->alive0[id] && !placed[id]) place(static_cast<NodeId>(id), {}, {0, 0});
  }

  std::set<std::string> seenRules;
  d->nodeCounts.reserve(d->steps.size() + 1);
  d->branchCounts.reserve(d->steps.size() + 1);
  d->nodeCounts.push_back(g.nodes);
  d->branchCounts.push_back(g.branches);
  d->inputsBefore.resize(d->steps.size());
  for (size_t k = 0; k < d->steps.size(); ++k) {
    const compiler::Step& s = d->steps[k];
    if (seenRules.insert(s.rule).second) d->firedRules.push_back(s.rule);
    auto& before = d->inputsBefore[k];
    for (const auto& [id, ins] : s.inputsSet) before.emplace_back(id, g.inputs[id]);
    for (NodeId id : s.nodesRemoved) before.emplace_back(id, g.inputs[id]);
    for (NodeId id : s.nodesRemoved) {
      g.setAlive(id, false);
      g.setInputs(id, {});
      if (placed[id]) occupied.add(d->positions[id], -1);
    }
    for (NodeId id : s.nodesAdded) g.setAlive(id, true);
    for (const auto& [id, ins] : s.inputsSet) g.setInputs(id, ins);
    const NodePosition fallback =
        s.branch >= 0 && placed[s.branch] ? d->positions[s.branch] : NodePosition{0, 0};
    // New nodes take the places the step freed first (a fold's result where the folded
    // nodes were; O1 compact's copies where the originals were), in id order.
    std::vector<NodePosition> freed;
    for (NodeId id : distinct(s.nodesRemoved)) {
      if (placed[id]) freed.push_back(d->positions[id]);
    }
    size_t nextFreed = 0;
    for (NodeId id : distinct(s.nodesAdded)) {
      if (!placed[id] && nextFreed < freed.size()) {
        d->positions[id] = freed[nextFreed++];
        placed[id] = 1;
        occupied.add(d->positions[id], +1);
        continue;
      }
      // Readers among the re-wired nodes: enough to place a node that only feeds others.
      std::vector<NodeId> readersOf;
      for (const auto& [r, ins] : s.inputsSet) {
        if (std::find(ins.begin(), ins.end(), id) != ins.end()) readersOf.push_back(r);
      }
      // A node re-added later keeps its place (ids are never reused, but be safe).
      if (placed[id]) {
        occupied.add(d->positions[id], +1);
      } else {
        place(id, readersOf, fallback);
      }
    }
    d->nodeCounts.push_back(g.nodes);
    d->branchCounts.push_back(g.branches);
  }
  return d;
}

StepCursor::StepCursor(std::shared_ptr<const ReplayData> data)
    : data_(std::move(data)),
      alive_(data_->alive0),
      inputs_(data_->inputs0),
      output_(data_->output0) {}

void StepCursor::moveTo(size_t k, std::vector<NodeId>* touched) {
  k = std::min(k, data_->stepCount());
  while (step_ < k) forward(touched);
  while (step_ > k) backward(touched);
}

void StepCursor::forward(std::vector<NodeId>* touched) {
  const compiler::Step& s = data_->steps[step_];
  for (NodeId id : s.nodesRemoved) {
    alive_[id] = 0;
    inputs_[id].clear();
    touched->push_back(id);
  }
  for (NodeId id : s.nodesAdded) {
    alive_[id] = 1;
    touched->push_back(id);
  }
  for (const auto& [id, ins] : s.inputsSet) {
    inputs_[id] = ins;
    touched->push_back(id);
  }
  output_ = s.outputAfter;
  ++step_;
}

void StepCursor::backward(std::vector<NodeId>* touched) {
  --step_;
  const compiler::Step& s = data_->steps[step_];
  for (NodeId id : s.nodesAdded) {
    alive_[id] = 0;
    inputs_[id].clear();
    touched->push_back(id);
  }
  for (NodeId id : s.nodesRemoved) {
    alive_[id] = 1;
    touched->push_back(id);
  }
  for (const auto& [id, ins] : data_->inputsBefore[step_]) {
    inputs_[id] = ins;
    touched->push_back(id);
  }
  output_ = s.outputBefore;
}

std::vector<NodeId> StepCursor::aliveIds() const {
  std::vector<NodeId> ids;
  for (size_t id = 0; id < alive_.size(); ++id) {
    if (alive_[id]) ids.push_back(static_cast<NodeId>(id));
  }
  return ids;
}

std::vector<int> StepCursor::readerCounts() const {
  std::vector<int> readers(alive_.size(), 0);
  for (size_t id = 0; id < alive_.size(); ++id) {
    if (!alive_[id]) continue;
    for (NodeId in : distinct(inputs_[id])) {
      if (in >= 0 && alive_[static_cast<size_t>(in)]) ++readers[static_cast<size_t>(in)];
    }
  }
  return readers;
}

}  // namespace lsrl::studio
