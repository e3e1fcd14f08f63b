#include "app/studio/document/document.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <deque>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>

#include "app/layout/expansion_room.h"
#include "app/layout/incremental_layout.h"
#include "app/studio/document/edit_commands.h"
#include "core/graph/derived_widths.h"
#include "core/graph/node_reference.h"
#include "core/graph/sugar_replay.h"
#include "core/io/graph_file.h"
#include "core/io/python_program.h"
#include "core/precision/group_rebuild.h"
#include "core/precision/group_tree.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::studio {

std::string_view fieldName(Field f) {
  switch (f) {
    case Field::A:
      return "A";
    case Field::B:
      return "B";
    case Field::b:
      return "b";
    case Field::init:
      return "init";
    case Field::bias:
      return "bias";
  }
  return "?";
}

bool isVectorField(Field f) { return f == Field::b || f == Field::init || f == Field::bias; }

namespace {

constexpr double kMaxDrawableCoordinate = 1e7;

std::string describeNode(const Node& n) {
  std::string s = std::string(n.countedOpName()) + " " + std::to_string(n.id);
  if (!n.name.empty()) s += " '" + n.name + "'";
  return s;
}

ExactMatrix& matrixField(Node& n, Field f) { return f == Field::B ? n.B : n.A; }

ExactVector& vectorField(Node& n, Field f) {
  if (f == Field::init) return n.init;
  if (f == Field::bias) return n.bias;
  return n.b;
}

// Whether a slot whose input is taken away (its producer deleted, its edge removed) stays
// open (kNoNode). Every op keeps it except a Concat the user built, which closes it up; a
// Concat made by a sugar call keeps it: its slots are the call's operands, and closing one
// would shift the next operand into its place (x - y would become y - ...).
bool keepsOpenSlots(const Node& n) { return n.op != Op::Concat || n.group != kNoGroup; }

bool hasField(const Node& n, Field f) {
  switch (n.op) {
    case Op::Linear:
      return f == Field::A || f == Field::b;
    case Op::LinState:
      return f != Field::b;
    default:
      return false;
  }
}

}  // namespace

Document::Document(QObject* parent) : QObject(parent) {
  QObject::connect(&undo_, &QUndoStack::cleanChanged, this,
                   [this] { Q_EMIT modifiedChanged(isModified()); });
  visible_ = drawableGraph();
  problems_ = checkGraph(graph_);
}

VisibleGraph Document::drawableGraph() const {
  VisibleGraph visible = visibleGraph(graph_);
  limitForDrawing(visible);
  return visible;
}

Document::~Document() = default;

QString Document::displayName() const {
  if (!filePath_.isEmpty()) return QFileInfo(filePath_).fileName();
  return title_.isEmpty() ? QStringLiteral("Untitled") : title_;
}

bool Document::contains(ItemRef item) const {
  return item.kind == ItemRef::Kind::Node ? graph_.contains(item.id)
                                          : graph_.containsGroup(item.id);
}

std::vector<Problem> Document::problemsOf(NodeId id) const {
  std::vector<Problem> out;
  for (const Problem& p : problems_) {
    if (p.node == id) out.push_back(p);
  }
  return out;
}

std::optional<NodePosition> Document::position(ItemRef item) const {
  if (item.kind == ItemRef::Kind::Node) {
    auto it = graph_.layout().find(item.id);
    if (it == graph_.layout().end()) return std::nullopt;
    return it->second;
  }
  if (auto it = graph_.groupLayout().find(item.id); it != graph_.groupLayout().end()) {
    return it->second;
  }
  // A group never placed as a box sits at the centre of its members' bounding box.
  if (!graph_.containsGroup(item.id)) return std::nullopt;
  bool any = false;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (NodeId m : graph_.groups()[static_cast<size_t>(item.id)].nodes) {
    auto it = graph_.layout().find(m);
    if (it == graph_.layout().end()) continue;
    const NodePosition& p = it->second;
    if (!any) {
      x0 = x1 = p.x;
      y0 = y1 = p.y;
      any = true;
    }
    x0 = std::min(x0, p.x);
    x1 = std::max(x1, p.x);
    y0 = std::min(y0, p.y);
    y1 = std::max(y1, p.y);
  }
  if (!any) return std::nullopt;
  return NodePosition{(x0 + x1) / 2, (y0 + y1) / 2};
}

// ---- files -----------------------------------------------------------------------

void Document::replaceContent(Graph g, nlohmann::json metadata) {
  graph_ = std::move(g);
  // Positions far beyond any drawing (a hand-edited file) would wreck the view: such
  // items count as unplaced and get laid out afresh.
  auto absurd = [](const auto& entry) {
    return !(std::abs(entry.second.x) <= kMaxDrawableCoordinate &&
             std::abs(entry.second.y) <= kMaxDrawableCoordinate);
  };
  std::erase_if(graph_.layout(), absurd);
  std::erase_if(graph_.groupLayout(), absurd);
  metadata_ = std::move(metadata);
  undo_.clear();
  undo_.setClean();
  ++revision_;
  ++structureRevision_;
  // A graph too big to draw opens with its groups collapsed (a view setting, not an edit):
  // sugar calls become one box each, which is often enough to draw it all.
  collapsedOnOpen_ = false;
  visible_ = visibleGraph(graph_);
  if (!withinDrawLimits(visible_)) {
    for (const Group& group : graph_.groups()) {
      if (group.removed || !group.expanded) continue;
      graph_.mutableGroup(group.id).expanded = false;
      collapsedOnOpen_ = true;
    }
    if (collapsedOnOpen_) visible_ = visibleGraph(graph_);
  }
  limitForDrawing(visible_);
  problems_ = checkGraph(graph_);
  DocumentChange what;
  what.replaced = true;
  what.structure = true;
  what.outputAfter = graph_.output();
  Q_EMIT documentReplaced();
  emitChange(what, true);
  Q_EMIT modifiedChanged(isModified());
}

void Document::newDocument() {
  filePath_.clear();
  sourcePath_.clear();
  title_.clear();
  unsavedSource_ = false;
  replaceContent(Graph(), nullptr);
  Q_EMIT filePathChanged(filePath_);
}

void Document::openFile(const QString& path) {
  nlohmann::json metadata;
  const std::string file = path.toStdString();
  Graph g = loadProgramFile(file, &metadata);  // throws; document unchanged
  const QString absolute = QFileInfo(path).absoluteFilePath();
  const bool python = isPythonProgramPath(file);
  filePath_ = python ? QString() : absolute;
  sourcePath_ = python ? absolute : QString();
  title_ = python ? QFileInfo(path).fileName() : QString();
  unsavedSource_ = false;
  replaceContent(std::move(g), std::move(metadata));
  Q_EMIT filePathChanged(filePath_);
}

void Document::reloadSource() {
  if (sourcePath_.isEmpty()) return;
  nlohmann::json metadata;
  Graph g = loadPythonProgram(sourcePath_.toStdString(), &metadata);  // throws; unchanged
  unsavedSource_ = false;
  replaceContent(std::move(g), std::move(metadata));
  Q_EMIT filePathChanged(filePath_);
}

void Document::setGraph(Graph g, nlohmann::json metadata, const QString& title, bool modified,
                        const QString& filePath) {
  filePath_ = filePath.isEmpty() ? QString() : QFileInfo(filePath).absoluteFilePath();
  sourcePath_.clear();
  title_ = title;
  unsavedSource_ = modified;
  replaceContent(std::move(g), std::move(metadata));
  Q_EMIT filePathChanged(filePath_);
}

void Document::saveTo(const QString& path) {
  saveGraphFile(graph_, path.toStdString(), metadata_);  // atomic; throws with the reason
  const QString absolute = QFileInfo(path).absoluteFilePath();
  const bool pathChanged = absolute != filePath_;
  filePath_ = absolute;
  sourcePath_.clear();  // now a graph file of its own
  unsavedSource_ = false;
  undo_.setClean();
  Q_EMIT modifiedChanged(isModified());
  if (pathChanged) Q_EMIT filePathChanged(filePath_);
}

std::string Document::toText() const { return graphToString(graph_, metadata_); }

// ---- changes: derive, notify, undo ---------------------------------------------------

namespace {

template <class Map>
void collectKeys(const Map& map, std::set<int>& out) {
  for (const auto& [id, value] : map) out.insert(id);
}

template <class Record, class Map>
const Record* recordIn(const Map& map, int id) {
  const auto it = map.find(id);
  return it == map.end() ? nullptr : &it->second;
}

}  // namespace

DocumentChange Document::derive(const GraphChange& change, bool forward) {
  const GraphChange::Side& from = forward ? change.before : change.after;
  const GraphChange::Side& to = forward ? change.after : change.before;
  DocumentChange what;
  what.outputBefore = from.output;
  what.outputAfter = to.output;
  std::set<int> nodes, groups, moved, movedGroups;
  collectKeys(from.nodes, nodes);
  collectKeys(to.nodes, nodes);
  collectKeys(from.groups, groups);
  collectKeys(to.groups, groups);
  collectKeys(from.layout, moved);
  collectKeys(to.layout, moved);
  collectKeys(from.groupLayout, movedGroups);
  collectKeys(to.groupLayout, movedGroups);
  for (int id : nodes) {
    const Node* a = recordIn<Node>(from.nodes, id);
    const Node* b = recordIn<Node>(to.nodes, id);
    const bool wiredBefore = a != nullptr && !a->removed && !a->inputs.empty();
    const bool wiredAfter = b != nullptr && !b->removed && !b->inputs.empty();
    if ((a && b && a->inputs != b->inputs) || wiredBefore != wiredAfter) what.rewired.push_back(id);
    if (a && a->removed && b && !b->removed)
      what.restored.push_back(ItemRef{ItemRef::Kind::Node, id});
  }
  for (int id : groups) {
    const Group* a = recordIn<Group>(from.groups, id);
    const Group* b = recordIn<Group>(to.groups, id);
    if (a && a->removed && b && !b->removed)
      what.restored.push_back(ItemRef{ItemRef::Kind::Group, id});
  }
  what.nodes.assign(nodes.begin(), nodes.end());
  what.groups.assign(groups.begin(), groups.end());
  what.movedNodes.assign(moved.begin(), moved.end());
  what.movedGroups.assign(movedGroups.begin(), movedGroups.end());

  ++revision_;
  VisibleGraph visible = drawableGraph();
  auto sameItems = [](const VisibleGraph& x, const VisibleGraph& y) {
    if (x.items.size() != y.items.size()) return false;
    for (size_t i = 0; i < x.items.size(); ++i) {
      if (x.items[i].kind != y.items[i].kind || x.items[i].id != y.items[i].id) return false;
    }
    return true;
  };
  what.structure = !sameItems(visible, visible_);
  if (what.structure) ++structureRevision_;
  visible_ = std::move(visible);
  std::vector<Problem> problems = checkGraph(graph_);
  auto sameProblems = [](const std::vector<Problem>& x, const std::vector<Problem>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].kind != y[i].kind || x[i].node != y[i].node || x[i].message != y[i].message)
        return false;
    }
    return true;
  };
  problemsChanged_ = !sameProblems(problems, problems_);
  problems_ = std::move(problems);
  return what;
}

void Document::emitChange(const DocumentChange& what, bool problemsDiffer) {
  Q_EMIT changed(what);
  if (what.structure) Q_EMIT structureChanged();
  if (!what.rewired.empty()) Q_EMIT edgesChanged();
  std::vector<NodeId> touched;
  for (NodeId id : what.nodes)
    if (graph_.contains(id)) touched.push_back(id);
  // A new output and the old one both look different now.
  for (NodeId id : {what.outputBefore, what.outputAfter}) {
    if (what.outputBefore != what.outputAfter && graph_.contains(id) &&
        std::find(touched.begin(), touched.end(), id) == touched.end())
      touched.push_back(id);
  }
  if (!touched.empty()) Q_EMIT nodesChanged(touched);
  if (!what.movedNodes.empty() || !what.movedGroups.empty()) Q_EMIT positionsChanged();
  if (problemsDiffer) Q_EMIT problemsChanged();
}

void Document::applyChange(const GraphChange& change, bool forward) {
  applySide(graph_, forward ? change.after : change.before);
  const DocumentChange what = derive(change, forward);
  try {
    emitChange(what, problemsChanged_);
  } catch (const std::exception& e) {
    // The undo stack is mid-step here: nothing may unwind through it.
    Q_EMIT notificationFailed(QString::fromUtf8(e.what()));
  }
}

template <class Body>
void Document::edit(const QString& text, Body&& body, Merge merge) {
  GraphChange change;
  {
    GraphTransaction t(graph_);
    body(t);  // may throw: the transaction puts every touched record back
    change = t.commit();
  }
  if (change.empty()) return;
  const DocumentChange what = derive(change, true);
  const bool problemsDiffer = problemsChanged_;
  undo_.push(new ChangeCommand(this, std::move(change), merge, text));
  emitChange(what, problemsDiffer);
}

void Document::placeWithoutUndo(const std::map<NodeId, NodePosition>& nodes,
                                const std::map<GroupId, NodePosition>& groups) {
  DocumentChange what;
  for (const auto& [id, pos] : nodes) {
    if (!graph_.contains(id)) continue;
    graph_.layout()[id] = pos;
    what.movedNodes.push_back(id);
  }
  for (const auto& [id, pos] : groups) {
    if (!graph_.containsGroup(id)) continue;
    graph_.groupLayout()[id] = pos;
    what.movedGroups.push_back(id);
  }
  if (what.movedNodes.empty() && what.movedGroups.empty()) return;
  what.outputBefore = what.outputAfter = graph_.output();
  ++revision_;
  emitChange(what, false);
}

// ---- edits -----------------------------------------------------------------------

void Document::editNode(GraphTransaction& t, Node after) {
  const NodeId id = after.id;
  graph_.node(id);  // validates: a live node
  t.touchNode(id);
  graph_.mutableNode(id) = std::move(after);
  rederiveWidths(graph_, {id}, [&t](NodeId changed) { t.touchNode(changed); });
}

NodeId Document::addPrimitive(Op op, int dim, NodePosition at, bool slice) {
  if (dim < 1 || dim > kMaxNodeDim) {
    throw Error("a new " + std::string(opName(op)) + " node needs a width from 1 to " +
                std::to_string(kMaxNodeDim) + ", got " + std::to_string(dim));
  }
  Node n;
  n.id = static_cast<NodeId>(graph_.nodeCount());
  n.op = op;
  n.dim = dim;
  switch (op) {
    case Op::Input:
      break;
    case Op::Linear:
      n.inputs = {kNoNode};
      if (slice) {
        n.slice = SliceTag{0, dim};
        n.A = ExactMatrix::selection(0, dim, dim);
      } else {
        n.A = ExactMatrix::identity(dim);
      }
      n.b = zerosVector(dim);
      break;
    case Op::LinState:
      n.inputs = {kNoNode};
      n.A = ExactMatrix::identity(dim);
      n.B = ExactMatrix::identity(dim);
      n.init = zerosVector(dim);
      n.bias = zerosVector(dim);
      break;
    case Op::ReLU:
    case Op::Multi:
      n.inputs = {kNoNode};
      break;
    case Op::Concat:
      break;  // slots appear as inputs are connected
  }
  const QString what = slice ? QStringLiteral("Slice") : QString::fromUtf8(opName(op).data());
  NodeId id = kNoNode;
  edit(QStringLiteral("Add %1").arg(what), [&](GraphTransaction&) {
    id = graph_.addUnchecked(std::move(n));
    graph_.layout()[id] = at;
    const NodePosition offset = clearingOffset(graph_, {id});  // never on top of another box
    graph_.layout()[id] = NodePosition{at.x + offset.x, at.y + offset.y};
  });
  return id;
}

std::vector<NodeId> Document::insertFragment(const Graph& fragment, NodePosition at,
                                             const QString& what,
                                             const std::vector<FragmentWire>& wires) {
  if (fragment.liveNodeCount() == 0) return {};
  std::vector<NodeId> added;
  edit(what, [&](GraphTransaction& t) {
    const size_t nodesBefore = graph_.nodeCount();
    const size_t groupsBefore = graph_.groups().size();
    std::vector<NodeId> compactId;
    std::vector<NodeId> ids = graph_.append(fragment.compacted(&compactId));
    for (NodeId id : ids) {
      if (static_cast<size_t>(id) >= nodesBefore) added.push_back(id);
    }
    // Without a layout of its own the fragment is laid out in layers around `at`; with
    // one, it is shifted so that its bounding box is centred on `at`.
    bool placed = true;
    for (NodeId id : added) placed = placed && graph_.layout().count(id) > 0;
    if (!placed) {
      for (const auto& [id, pos] : layeredPlacement(graph_, added, at)) graph_.layout()[id] = pos;
    } else {
      double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
      for (NodeId id : added) {
        const NodePosition& p = graph_.layout()[id];
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y);
        y1 = std::max(y1, p.y);
      }
      const double dx = at.x - (x0 + x1) / 2, dy = at.y - (y0 + y1) / 2;
      for (NodeId id : added) {
        graph_.layout()[id].x += dx;
        graph_.layout()[id].y += dy;
      }
      for (size_t gi = groupsBefore; gi < graph_.groups().size(); ++gi) {
        auto it = graph_.groupLayout().find(static_cast<GroupId>(gi));
        if (it != graph_.groupLayout().end()) {
          it->second.x += dx;
          it->second.y += dy;
        }
      }
    }
    // Collapsed groups of the fragment sit where their members are centred.
    for (size_t gi = groupsBefore; gi < graph_.groups().size(); ++gi) {
      const auto gid = static_cast<GroupId>(gi);
      if (graph_.groupLayout().count(gid) == 0) {
        if (auto p = position(ItemRef{ItemRef::Kind::Group, gid})) graph_.groupLayout()[gid] = *p;
      }
    }
    // Then the whole fragment moves down until it covers nothing already there.
    const NodePosition offset = clearingOffset(graph_, added);
    if (offset.x != 0 || offset.y != 0) {
      for (NodeId id : added) {
        graph_.layout()[id].x += offset.x;
        graph_.layout()[id].y += offset.y;
      }
      for (size_t gi = groupsBefore; gi < graph_.groups().size(); ++gi) {
        NodePosition& p = graph_.groupLayout()[static_cast<GroupId>(gi)];
        p.x += offset.x;
        p.y += offset.y;
      }
    }
    wireFragment(t, wires, compactId, ids, groupsBefore);
  });
  return added;
}

void Document::wireFragment(GraphTransaction& t, const std::vector<FragmentWire>& wires,
                            const std::vector<NodeId>& compactId, const std::vector<NodeId>& ids,
                            size_t groupsBefore) {
  for (const FragmentWire& w : wires) {
    const NodeId inFragment = w.node >= 0 && static_cast<size_t>(w.node) < compactId.size()
                                  ? compactId[static_cast<size_t>(w.node)]
                                  : kNoNode;
    if (inFragment < 0 || static_cast<size_t>(inFragment) >= ids.size())
      throw Error("the inserted call has no node " + std::to_string(w.node) + " to wire");
    editNode(t, withInput(w.from, ids[static_cast<size_t>(inFragment)], w.slot));  // or refused
    // The call's parameter names its operand as a program's call does ("node 12").
    for (size_t gi = groupsBefore; gi < graph_.groups().size(); ++gi) {
      Group& group = graph_.mutableGroup(static_cast<GroupId>(gi));
      if (group.parent != kNoGroup) continue;
      for (auto& [name, value] : group.params)
        if (name == w.operand) value = nodeReferenceText(w.from);
    }
  }
}

void Document::touchForErase(GraphTransaction& t, const std::vector<NodeId>& ids) {
  std::set<NodeId> gone(ids.begin(), ids.end());
  for (NodeId id : ids) t.touchNode(id);
  for (const Node& n : graph_.nodes()) {
    if (n.removed) continue;
    for (NodeId p : n.inputs) {
      if (gone.count(p)) {
        t.touchNode(n.id);
        break;
      }
    }
  }
  for (const Group& gr : graph_.groups()) {
    if (gr.removed) continue;
    for (NodeId m : gr.nodes) {
      if (gone.count(m)) {
        t.touchGroup(gr.id);
        break;
      }
    }
  }
}

void Document::removeNodes(const std::vector<NodeId>& ids) {
  std::vector<NodeId> valid;
  for (NodeId id : ids) {
    if (graph_.contains(id) && std::find(valid.begin(), valid.end(), id) == valid.end())
      valid.push_back(id);
  }
  if (valid.empty()) return;
  const QString text = valid.size() == 1 ? QStringLiteral("Delete node %1").arg(valid.front())
                                         : QStringLiteral("Delete %1 nodes").arg(valid.size());
  edit(text, [&](GraphTransaction& t) {
    touchForErase(t, valid);
    std::vector<NodeId> readers;
    const auto successors = graph_.successors();
    for (NodeId id : valid)
      for (NodeId r : successors[static_cast<size_t>(id)]) readers.push_back(r);
    // Graph::erase closes up a Concat's slot: a sugar call's Concat keeps it open instead.
    const std::set<NodeId> gone(valid.begin(), valid.end());
    for (NodeId r : readers) {
      Node& reader = graph_.mutableNode(r);
      if (reader.op != Op::Concat || !keepsOpenSlots(reader)) continue;
      for (NodeId& p : reader.inputs)
        if (gone.count(p)) p = kNoNode;
    }
    graph_.erase(valid);
    // Readers of deleted nodes may change width (a Concat lost a slot).
    std::erase_if(readers, [this](NodeId r) { return !graph_.contains(r); });
    rederiveWidths(graph_, readers, [&t](NodeId changed) { t.touchNode(changed); });
  });
}

std::optional<std::string> Document::connectionRefusal(NodeId from, NodeId to, int slot) const {
  if (!graph_.contains(from)) return "there is no node " + std::to_string(from);
  if (!graph_.contains(to)) return "there is no node " + std::to_string(to);
  const Node& target = graph_.node(to);
  if (from == to) return describeNode(target) + " cannot read its own value";
  if (target.op == Op::Input)
    return describeNode(target) + " is the program's input: it reads nothing";
  const int slots = static_cast<int>(target.inputs.size());
  if (target.op == Op::Concat) {
    if (slot < -1 || slot > slots) {
      return describeNode(target) + " has input slots 0.." + std::to_string(slots) + ", not " +
             std::to_string(slot);
    }
  } else if (slot < -1 || slot > 0) {
    return describeNode(target) + " has one input (slot 0), not slot " + std::to_string(slot);
  }
  // A path to -> ... -> from would close a cycle.
  const auto successors = graph_.successors();
  std::vector<char> seen(graph_.nodeCount(), 0);
  std::deque<NodeId> queue{to};
  seen[static_cast<size_t>(to)] = 1;
  while (!queue.empty()) {
    const NodeId n = queue.front();
    queue.pop_front();
    if (n == from) {
      return "connecting " + describeNode(graph_.node(from)) + " to " + describeNode(target) +
             " would make a cycle: " + describeNode(target) + " already feeds " +
             describeNode(graph_.node(from)) +
             " (LSRL programs are acyclic; state lives in LinState)";
    }
    for (NodeId s : successors[static_cast<size_t>(n)]) {
      if (!seen[static_cast<size_t>(s)]) {
        seen[static_cast<size_t>(s)] = 1;
        queue.push_back(s);
      }
    }
  }
  return std::nullopt;
}

Node Document::withInput(NodeId from, NodeId to, int slot) const {
  if (auto refusal = connectionRefusal(from, to, slot)) throw Error(*refusal);
  Node n = graph_.node(to);
  if (n.op == Op::Concat) {
    if (slot < 0 || slot == static_cast<int>(n.inputs.size())) {
      n.inputs.push_back(from);
    } else {
      n.inputs[static_cast<size_t>(slot)] = from;
    }
  } else {
    n.inputs = {from};
  }
  return n;
}

Node Document::withoutInput(NodeId to, int slot) const {
  Node n = graph_.node(to);
  if (slot < 0 || slot >= static_cast<int>(n.inputs.size())) {
    throw Error(describeNode(n) + " has no input slot " + std::to_string(slot));
  }
  if (keepsOpenSlots(n)) {
    n.inputs[static_cast<size_t>(slot)] = kNoNode;
  } else {
    n.inputs.erase(n.inputs.begin() + slot);
  }
  return n;
}

void Document::connect(NodeId from, NodeId to, int slot) {
  Node n = withInput(from, to, slot);  // throws the refusal
  edit(QStringLiteral("Connect #%1 → #%2").arg(from).arg(to),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::disconnect(NodeId to, int slot) {
  if (!graph_.contains(to)) return;
  const int slots = static_cast<int>(graph_.node(to).inputs.size());
  if (slot < 0 || slot >= slots) return;
  Node n = withoutInput(to, slot);
  edit(QStringLiteral("Disconnect input %1 of #%2").arg(slot).arg(to),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::rewire(NodeId reader, int readerSlot, NodeId from, NodeId to, int slot) {
  edit(QStringLiteral("Rewire #%1 → #%2").arg(from).arg(to), [&](GraphTransaction& t) {
    const bool closesUp = !keepsOpenSlots(graph_.node(reader));
    editNode(t, withoutInput(reader, readerSlot));
    // Taking a user Concat's input out moves its later slots up by one.
    if (to == reader && closesUp && slot > readerSlot) --slot;
    editNode(t, withInput(from, to, slot));  // a refusal rolls the disconnect back too
  });
}

void Document::setOutput(NodeId id) {
  if (id != kNoNode && !graph_.contains(id)) {
    throw Error("there is no node " + std::to_string(id) + " to make the output");
  }
  if (id == graph_.output()) return;
  edit(id == kNoNode ? QStringLiteral("Clear output") : QStringLiteral("Set output to #%1").arg(id),
       [&](GraphTransaction&) { graph_.setOutput(id); });
}

void Document::planMoves(GraphTransaction& t,
                         const std::vector<std::pair<ItemRef, NodePosition>>& moves) {
  // Positions after the moves; the first claim on an id wins (an item moved explicitly
  // before a member that travels along with its box).
  std::map<NodeId, NodePosition> nodes;
  std::map<GroupId, NodePosition> groups;
  for (const auto& [item, pos] : moves) {
    if (item.kind == ItemRef::Kind::Node) {
      if (graph_.contains(item.id)) nodes.try_emplace(item.id, pos);
      continue;
    }
    if (!graph_.containsGroup(item.id)) continue;
    const std::optional<NodePosition> old = position(item);
    groups.try_emplace(item.id, pos);
    if (!old) continue;
    // Hidden members, and the boxes of groups nested inside, travel with their box.
    const double dx = pos.x - old->x, dy = pos.y - old->y;
    for (NodeId m : graph_.groups()[static_cast<size_t>(item.id)].nodes) {
      auto it = graph_.layout().find(m);
      if (it != graph_.layout().end())
        nodes.try_emplace(m, NodePosition{it->second.x + dx, it->second.y + dy});
    }
    for (const Group& inner : graph_.groups()) {
      if (inner.parent != item.id || inner.removed) continue;
      auto it = graph_.groupLayout().find(inner.id);
      if (it != graph_.groupLayout().end())
        groups.try_emplace(inner.id, NodePosition{it->second.x + dx, it->second.y + dy});
    }
  }
  for (const auto& [id, pos] : nodes) {
    t.touchNode(id);
    graph_.layout()[id] = pos;
  }
  for (const auto& [id, pos] : groups) {
    t.touchGroup(id);
    graph_.groupLayout()[id] = pos;
  }
}

void Document::moveItems(const std::vector<std::pair<ItemRef, NodePosition>>& moves, bool merge) {
  const QString text = moves.size() == 1 ? QStringLiteral("Move")
                                         : QStringLiteral("Move %1 items").arg(moves.size());
  edit(
      text, [&](GraphTransaction& t) { planMoves(t, moves); },
      merge ? Merge::SameMoves : Merge::Never);
}

void Document::applyLayout(const std::map<NodeId, NodePosition>& nodes,
                           const std::map<GroupId, NodePosition>& groups, const QString& what,
                           bool follows) {
  edit(
      what,
      [&](GraphTransaction& t) {
        for (const auto& [id, pos] : nodes) {
          if (!graph_.contains(id)) continue;
          t.touchNode(id);
          graph_.layout()[id] = pos;
        }
        for (const auto& [id, pos] : groups) {
          if (!graph_.containsGroup(id)) continue;
          t.touchGroup(id);
          graph_.groupLayout()[id] = pos;
        }
      },
      follows ? Merge::LayoutFollows : Merge::Never);
}

void Document::rename(NodeId id, const std::string& name) {
  Node n = graph_.node(id);
  if (n.name == name) return;
  n.name = name;
  edit(QStringLiteral("Rename #%1").arg(id),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setAlwaysPositive(NodeId id, bool positive) {
  Node n = graph_.node(id);
  if (n.alwaysPositive == positive) return;
  n.alwaysPositive = positive;
  edit(QStringLiteral("Always positive #%1").arg(id),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setEntry(NodeId id, Field field, int row, int col, const Exact& value) {
  Node n = graph_.node(id);
  if (!hasField(n, field)) {
    throw Error(describeNode(n) + " has no " + std::string(fieldName(field)));
  }
  if (isVectorField(field)) {
    ExactVector& v = vectorField(n, field);
    if (row < 0 || row >= static_cast<int>(v.size()) || col != 0) {
      throw Error(describeNode(n) + ": " + std::string(fieldName(field)) + " has " +
                  std::to_string(v.size()) + " entries, not [" + std::to_string(row) + "]");
    }
    if (v[static_cast<size_t>(row)] == value) return;
    v[static_cast<size_t>(row)] = value;
  } else {
    ExactMatrix& m = matrixField(n, field);
    if (row < 0 || row >= m.rows() || col < 0 || col >= m.cols()) {
      throw Error(describeNode(n) + ": " + std::string(fieldName(field)) + " is " +
                  std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + ", no entry [" +
                  std::to_string(row) + ", " + std::to_string(col) + "]");
    }
    if (m.at(row, col) == value) return;
    std::vector<ExactMatrix::Entry> entries = m.entries();
    std::erase_if(entries, [&](const auto& e) { return e.row == row && e.col == col; });
    entries.push_back({row, col, value});
    m = ExactMatrix::fromEntries(m.rows(), m.cols(), std::move(entries));
  }
  edit(QStringLiteral("Set %1[%2, %3] of #%4 to %5")
           .arg(QString::fromUtf8(fieldName(field).data()))
           .arg(row)
           .arg(col)
           .arg(id)
           .arg(QString::fromStdString(value.toString())),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setMatrix(NodeId id, Field field, ExactMatrix m) {
  Node n = graph_.node(id);
  if (!hasField(n, field) || isVectorField(field)) {
    throw Error(describeNode(n) + " has no matrix " + std::string(fieldName(field)));
  }
  if (m.rows() < 1 || m.cols() < 0 || m.rows() > kMaxNodeDim || m.cols() > kMaxNodeDim) {
    throw Error(describeNode(n) + ": " + std::string(fieldName(field)) + " cannot be " +
                std::to_string(m.rows()) + " x " + std::to_string(m.cols()));
  }
  matrixField(n, field) = std::move(m);
  edit(QStringLiteral("Resize %1 of #%2").arg(QString::fromUtf8(fieldName(field).data())).arg(id),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setVector(NodeId id, Field field, ExactVector v) {
  Node n = graph_.node(id);
  if (!hasField(n, field) || !isVectorField(field)) {
    throw Error(describeNode(n) + " has no vector " + std::string(fieldName(field)));
  }
  vectorField(n, field) = std::move(v);
  edit(QStringLiteral("Set %1 of #%2").arg(QString::fromUtf8(fieldName(field).data())).arg(id),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setInputWidth(NodeId id, int dim) {
  Node n = graph_.node(id);
  if (n.op != Op::Input)
    throw Error(describeNode(n) + " is not an Input: its width follows from its values");
  if (dim < 1 || dim > kMaxNodeDim) {
    throw Error("an Input's width must be 1 to " + std::to_string(kMaxNodeDim) + ", got " +
                std::to_string(dim));
  }
  if (n.dim == dim) return;
  n.dim = dim;
  edit(QStringLiteral("Set width of #%1 to %2").arg(id).arg(dim),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::setSliceRange(NodeId id, int start, int end) {
  Node n = graph_.node(id);
  if (!n.isSlice()) throw Error(describeNode(n) + " is not a Slice");
  if (start < 0 || end <= start) {
    throw Error("a Slice selects rows [start, end) with 0 <= start < end, got [" +
                std::to_string(start) + ", " + std::to_string(end) + ")");
  }
  int width = end;
  if (!n.inputs.empty() && graph_.contains(n.inputs[0])) width = graph_.node(n.inputs[0]).dim;
  n.slice = SliceTag{start, end};
  n.dim = end - start;
  n.A = ExactMatrix::selection(start, end, std::max(width, end));
  n.b = zerosVector(n.dim);
  edit(QStringLiteral("Slice #%1 to [%2, %3)").arg(id).arg(start).arg(end),
       [&](GraphTransaction& t) { editNode(t, std::move(n)); });
}

void Document::placeUnplacedMembers(GraphTransaction& t, GroupId id) {
  std::vector<NodeId> unplaced;
  for (NodeId m : graph_.groups()[static_cast<size_t>(id)].nodes) {
    if (graph_.layout().count(m) == 0) unplaced.push_back(m);
  }
  if (unplaced.empty()) return;
  const NodePosition centre = position(ItemRef{ItemRef::Kind::Group, id}).value_or(NodePosition{});
  t.touchGroup(id);
  graph_.groupLayout().try_emplace(id, centre);
  for (const auto& [nid, pos] : layeredPlacement(graph_, unplaced, centre)) {
    t.touchNode(nid);
    graph_.layout()[nid] = pos;
  }
}

bool Document::isEditableParameter(GroupId id, const std::string& key) const {
  if (!graph_.containsGroup(id)) return false;
  const std::string* value = findParam(graph_.groups()[static_cast<size_t>(id)].params, key);
  if (value == nullptr || *value == "none" || parseNodeReference(*value)) return false;
  try {
    (void)Exact::parse(*value);
    return true;
  } catch (const Error&) {
    return false;  // a list ("[1, 0]") or a name: not a single constant
  }
}

void Document::setGroupParameter(GroupId id, const std::string& key, const std::string& value) {
  if (!graph_.containsGroup(id)) throw Error("group " + std::to_string(id) + " does not exist");
  const Group& group = graph_.groups()[static_cast<size_t>(id)];
  const std::string call = group.function + " (group " + std::to_string(id) + ")";
  if (!isEditableParameter(id, key))
    throw Error(call + " has no constant parameter \"" + key + "\"");
  Exact parsed;
  try {
    parsed = Exact::parse(value);
  } catch (const Error& e) {
    throw Error(key + " of " + call + ": " + quoteInput(value) + " is not a number (" + e.what() +
                ")");
  }
  const std::string text = parsed.toString();
  if (*findParam(group.params, key) == text) return;
  edit(QStringLiteral("Set %1 of %2")
           .arg(QString::fromStdString(key), QString::fromStdString(group.function)),
       [&](GraphTransaction& t) {
         // The call and every call nested in it: their records and their nodes.
         for (const Group& g : graph_.groups()) {
           if (g.removed || !withinGroup(graph_, g.id, id)) continue;
           t.touchGroup(g.id);
           for (NodeId n : g.nodes)
             if (graph_.contains(n)) t.touchNode(n);
         }
         const SugarParams params =
             withParams(graph_.groups()[static_cast<size_t>(id)].params, {{key, text}});
         if (const auto why = rebuildInPlace(graph_, id, params))
           throw Error(key + " = " + text + " cannot be set on " + call + ": " + *why);
       });
}

void Document::setGroupExpanded(GroupId id, bool expanded) {
  if (!graph_.containsGroup(id)) return;
  const Group& group = graph_.groups()[static_cast<size_t>(id)];
  if (group.expanded == expanded) return;
  const QString text = QStringLiteral("%1 %2").arg(expanded ? "Expand" : "Collapse",
                                                   QString::fromStdString(group.function));
  edit(text, [&](GraphTransaction& t) {
    if (expanded) {
      placeUnplacedMembers(t, id);
      // The moves that make room for the frame belong to the same undo step.
      std::vector<std::pair<ItemRef, NodePosition>> moves;
      for (const ItemMove& m : roomForExpansion(graph_, id)) {
        const auto kind =
            m.item.kind == VisibleItem::Kind::Node ? ItemRef::Kind::Node : ItemRef::Kind::Group;
        moves.emplace_back(ItemRef{kind, m.item.id}, m.to);
      }
      planMoves(t, moves);
    }
    t.touchGroup(id);
    graph_.mutableGroup(id).expanded = expanded;
  });
}

void Document::setAllGroupsExpanded(bool expanded) {
  std::vector<GroupId> changed;
  for (const Group& g : graph_.groups()) {
    if (!g.removed && g.expanded != expanded) changed.push_back(g.id);
  }
  if (changed.empty()) return;
  edit(
      expanded ? QStringLiteral("Expand all groups") : QStringLiteral("Collapse all groups"),
      [&](GraphTransaction& t) {
        for (GroupId id : changed) {
          if (expanded) placeUnplacedMembers(t, id);
          t.touchGroup(id);
          graph_.mutableGroup(id).expanded = expanded;
        }
      },
      Merge::LayoutFollows);
}

}  // namespace lsrl::studio
