#include "app/studio/document/graph_change.h"

#include <algorithm>

namespace lsrl::studio {

namespace {

bool samePosition(const std::optional<NodePosition>& a, const std::optional<NodePosition>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->x == b->x && a->y == b->y);
}

bool sameRecord(const Node& a, const Node& b) {
  return a.id == b.id && a.op == b.op && a.dim == b.dim && a.inputs == b.inputs &&
         a.name == b.name && a.alwaysPositive == b.alwaysPositive && a.group == b.group &&
         a.removed == b.removed && a.slice == b.slice && a.A == b.A && a.B == b.B && a.b == b.b &&
         a.init == b.init && a.bias == b.bias;
}

bool sameRecord(const Group& a, const Group& b) {
  return a.id == b.id && a.function == b.function && a.params == b.params && a.parent == b.parent &&
         a.nodes == b.nodes && a.output == b.output && a.expanded == b.expanded &&
         a.removed == b.removed;
}

template <class Map>
std::optional<NodePosition> entryOf(const Map& layout, int id) {
  const auto it = layout.find(id);
  if (it == layout.end()) return std::nullopt;
  return it->second;
}

// Drops the ids whose record is the same on both sides (present on both).
template <class Record>
void dropUnchanged(std::map<int, Record>& before, std::map<int, Record>& after) {
  for (auto it = before.begin(); it != before.end();) {
    const auto other = after.find(it->first);
    if (other != after.end() && sameRecord(it->second, other->second)) {
      after.erase(other);
      it = before.erase(it);
    } else {
      ++it;
    }
  }
}

void dropUnchangedPositions(std::map<int, std::optional<NodePosition>>& before,
                            std::map<int, std::optional<NodePosition>>& after) {
  for (auto it = before.begin(); it != before.end();) {
    const auto other = after.find(it->first);
    if (other != after.end() && samePosition(it->second, other->second)) {
      after.erase(other);
      it = before.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

bool GraphChange::empty() const {
  return before.nodeCount == after.nodeCount && before.groupCount == after.groupCount &&
         before.output == after.output && before.nodes.empty() && after.nodes.empty() &&
         before.groups.empty() && after.groups.empty() && before.layout.empty() &&
         after.layout.empty() && before.groupLayout.empty() && after.groupLayout.empty();
}

void GraphChange::mergeWith(const GraphChange& next) {
  // What `next` touched first keeps its state from before `next`, which is also its state
  // before this change (this change did not touch it).
  for (const auto& [id, n] : next.before.nodes) before.nodes.try_emplace(id, n);
  for (const auto& [id, g] : next.before.groups) before.groups.try_emplace(id, g);
  for (const auto& [id, p] : next.before.layout) before.layout.try_emplace(id, p);
  for (const auto& [id, p] : next.before.groupLayout) before.groupLayout.try_emplace(id, p);
  for (const auto& [id, n] : next.after.nodes) after.nodes.insert_or_assign(id, n);
  for (const auto& [id, g] : next.after.groups) after.groups.insert_or_assign(id, g);
  for (const auto& [id, p] : next.after.layout) after.layout.insert_or_assign(id, p);
  for (const auto& [id, p] : next.after.groupLayout) after.groupLayout.insert_or_assign(id, p);
  after.nodeCount = next.after.nodeCount;
  after.groupCount = next.after.groupCount;
  after.output = next.after.output;
}

void applySide(Graph& g, const GraphChange::Side& side) {
  // Shrink first (undoing an append), then grow (redoing one) from the side's records.
  g.truncate(side.nodeCount, side.groupCount);
  for (auto id = static_cast<GroupId>(g.groups().size()); static_cast<size_t>(id) < side.groupCount;
       ++id)
    g.addGroupUnchecked(side.groups.at(id));
  for (auto id = static_cast<NodeId>(g.nodeCount()); static_cast<size_t>(id) < side.nodeCount; ++id)
    g.addUnchecked(side.nodes.at(id));
  for (const auto& [id, n] : side.nodes) g.restoreRecord(n);
  for (const auto& [id, gr] : side.groups) g.restoreRecord(gr);
  for (const auto& [id, p] : side.layout) {
    if (p)
      g.layout()[id] = *p;
    else
      g.layout().erase(id);
  }
  for (const auto& [id, p] : side.groupLayout) {
    if (p)
      g.groupLayout()[id] = *p;
    else
      g.groupLayout().erase(id);
  }
  g.setOutput(g.contains(side.output) ? side.output : kNoNode);
}

GraphTransaction::GraphTransaction(Graph& g) : g_(g) {
  before_.nodeCount = g.nodeCount();
  before_.groupCount = g.groups().size();
  before_.output = g.output();
}

GraphTransaction::~GraphTransaction() {
  if (committed_) return;
  try {
    applySide(g_, before_);
  } catch (...) {
    // The before-images came from this graph: putting them back cannot fail short of
    // memory running out, and a destructor must not throw.
  }
}

void GraphTransaction::touchNode(NodeId id) {
  if (id < 0 || static_cast<size_t>(id) >= before_.nodeCount || before_.nodes.count(id)) return;
  before_.nodes.emplace(id, g_.nodes()[static_cast<size_t>(id)]);
  before_.layout.emplace(id, entryOf(g_.layout(), id));
}

void GraphTransaction::touchGroup(GroupId id) {
  if (id < 0 || static_cast<size_t>(id) >= before_.groupCount || before_.groups.count(id)) return;
  before_.groups.emplace(id, g_.groups()[static_cast<size_t>(id)]);
  before_.groupLayout.emplace(id, entryOf(g_.groupLayout(), id));
}

void GraphTransaction::touchEverything() {
  for (size_t i = 0; i < before_.nodeCount; ++i) touchNode(static_cast<NodeId>(i));
  for (size_t i = 0; i < before_.groupCount; ++i) touchGroup(static_cast<GroupId>(i));
}

GraphChange GraphTransaction::commit() {
  committed_ = true;
  GraphChange change;
  change.before = std::move(before_);
  GraphChange::Side& after = change.after;
  after.nodeCount = g_.nodeCount();
  after.groupCount = g_.groups().size();
  after.output = g_.output();
  for (const auto& [id, n] : change.before.nodes) {
    if (static_cast<size_t>(id) < after.nodeCount)
      after.nodes.emplace(id, g_.nodes()[static_cast<size_t>(id)]);
    after.layout.emplace(id, entryOf(g_.layout(), id));
  }
  for (const auto& [id, gr] : change.before.groups) {
    if (static_cast<size_t>(id) < after.groupCount)
      after.groups.emplace(id, g_.groups()[static_cast<size_t>(id)]);
    after.groupLayout.emplace(id, entryOf(g_.groupLayout(), id));
  }
  // Records appended by the edit: all of them, with their layout entries.
  for (size_t i = change.before.nodeCount; i < after.nodeCount; ++i) {
    const auto id = static_cast<NodeId>(i);
    after.nodes.emplace(id, g_.nodes()[i]);
    if (auto p = entryOf(g_.layout(), id)) after.layout.emplace(id, p);
    change.before.layout.try_emplace(id, std::nullopt);
  }
  for (size_t i = change.before.groupCount; i < after.groupCount; ++i) {
    const auto id = static_cast<GroupId>(i);
    after.groups.emplace(id, g_.groups()[i]);
    if (auto p = entryOf(g_.groupLayout(), id)) after.groupLayout.emplace(id, p);
    change.before.groupLayout.try_emplace(id, std::nullopt);
  }
  dropUnchanged(change.before.nodes, after.nodes);
  dropUnchanged(change.before.groups, after.groups);
  dropUnchangedPositions(change.before.layout, after.layout);
  dropUnchangedPositions(change.before.groupLayout, after.groupLayout);
  return change;
}

}  // namespace lsrl::studio
