#include "app/studio/document/document.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>

#include "app/layout/expansion_room.h"
#include "app/layout/incremental_layout.h"
#include "app/studio/document/edit_commands.h"
#include "core/graph/derived_widths.h"
#include "core/io/graph_file.h"
#include "core/io/python_program.h"
#include "core/util/error.h"

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
  rebuildVisible();
  revalidate();
}

Document::~Document() = default;

QString Document::displayName() const {
  if (!filePath_.isEmpty()) return QFileInfo(filePath_).fileName();
  return title_.isEmpty() ? QStringLiteral("Untitled") : title_;
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
  if (item.id < 0 || static_cast<size_t>(item.id) >= graph_.groups().size()) return std::nullopt;
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
  bump();
  rebuildVisible();
  revalidate();
  Q_EMIT documentReplaced();
  Q_EMIT structureChanged();
  Q_EMIT problemsChanged();
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

// ---- derived state ---------------------------------------------------------------

void Document::bump() { ++revision_; }

void Document::rebuildVisible() {
  visible_ = visibleGraph(graph_);
  ++structureRevision_;
}

void Document::revalidate() { problems_ = checkGraph(graph_); }

void Document::structureEdited() {
  bump();
  rebuildVisible();
  revalidate();
  Q_EMIT structureChanged();
  Q_EMIT problemsChanged();
}

void Document::restoreNodes(const std::vector<Node>& nodes, NodeId output) {
  std::vector<NodeId> ids;
  bool edges = false;
  for (const Node& n : nodes) {
    Node& current = graph_.mutableNode(n.id);
    edges = edges || current.inputs != n.inputs;
    current = n;
    ids.push_back(n.id);
  }
  const bool outputChanged = graph_.output() != output;
  graph_.setOutput(output);
  bump();
  revalidate();
  if (edges) {
    rebuildVisible();
    Q_EMIT edgesChanged();
  }
  if (outputChanged && std::find(ids.begin(), ids.end(), output) == ids.end()) {
    if (output != kNoNode) ids.push_back(output);
  }
  Q_EMIT nodesChanged(ids);
  Q_EMIT problemsChanged();
}

void Document::restorePositions(const std::map<NodeId, NodePosition>& nodes,
                                const std::map<GroupId, NodePosition>& groups) {
  for (const auto& [id, pos] : nodes) graph_.layout()[id] = pos;
  for (const auto& [id, pos] : groups) graph_.groupLayout()[id] = pos;
  bump();
  Q_EMIT positionsChanged();
}

void Document::restorePositions(const MoveCommand::Positions& positions) {
  for (GroupId id : positions.unsetGroups) graph_.groupLayout().erase(id);
  restorePositions(positions.nodes, positions.groups);
}

void Document::restoreGraph(const Graph& g) {
  graph_ = g;
  structureEdited();
}

void Document::restoreGroupsExpanded(const std::vector<GroupId>& ids, bool expanded) {
  for (GroupId id : ids) {
    if (id >= 0 && static_cast<size_t>(id) < graph_.groups().size()) {
      graph_.mutableGroup(id).expanded = expanded;
    }
  }
  structureEdited();
}

// ---- edits -----------------------------------------------------------------------

void Document::pushNodeEdit(std::vector<Node> after, NodeId output, const QString& text) {
  // Apply on a scratch copy of the touched records, propagate widths downstream, then
  // record before/after of every node that changed.
  std::map<NodeId, Node> before;
  for (Node& n : after) {
    before.emplace(n.id, graph_.node(n.id));
    graph_.mutableNode(n.id) = n;
  }
  std::vector<NodeId> seeds;
  for (const Node& n : after) seeds.push_back(n.id);
  rederiveWidths(graph_, seeds, &before);
  std::vector<Node> beforeList, afterList;
  for (const auto& [id, node] : before) {
    beforeList.push_back(node);
    afterList.push_back(graph_.node(id));
  }
  const NodeId outputBefore = graph_.output();
  // Put the old records back; the command's first redo is skipped, so apply via restore.
  for (const Node& n : beforeList) graph_.mutableNode(n.id) = n;
  restoreNodes(afterList, output);
  undo_.push(new NodeEditCommand(this, std::move(beforeList), std::move(afterList), outputBefore,
                                 output, text));
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
  const size_t nodesBefore = graph_.nodeCount();
  const size_t groupsBefore = graph_.groups().size();
  const NodeId id = graph_.addUnchecked(std::move(n));
  graph_.layout()[id] = at;
  const NodePosition offset = clearingOffset(graph_, {id});  // never on top of another box
  graph_.layout()[id] = NodePosition{at.x + offset.x, at.y + offset.y};
  structureEdited();
  const QString what = slice ? QStringLiteral("Slice") : QString::fromUtf8(opName(op).data());
  undo_.push(
      new AppendCommand(this, nodesBefore, groupsBefore, QStringLiteral("Add %1").arg(what)));
  return id;
}

std::vector<NodeId> Document::insertFragment(const Graph& fragment, NodePosition at,
                                             const QString& what) {
  if (fragment.nodeCount() == 0) return {};
  const size_t nodesBefore = graph_.nodeCount();
  const size_t groupsBefore = graph_.groups().size();
  std::vector<NodeId> ids = graph_.append(fragment);
  std::vector<NodeId> added;
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
  structureEdited();
  undo_.push(new AppendCommand(this, nodesBefore, groupsBefore, what));
  return added;
}

void Document::removeNodes(const std::vector<NodeId>& ids) {
  std::vector<NodeId> valid;
  for (NodeId id : ids) {
    if (id >= 0 && static_cast<size_t>(id) < graph_.nodeCount()) valid.push_back(id);
  }
  if (valid.empty()) return;
  Graph before = graph_;
  graph_.removeNodes(valid);
  // Readers of removed nodes may change width (a Concat lost a slot).
  std::vector<NodeId> all(graph_.nodeCount());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<NodeId>(i);
  rederiveWidths(graph_, all, nullptr);
  const QString text = valid.size() == 1 ? QStringLiteral("Delete node")
                                         : QStringLiteral("Delete %1 nodes").arg(valid.size());
  Graph after = graph_;
  structureEdited();
  undo_.push(new SnapshotCommand(this, std::move(before), std::move(after), text));
}

std::optional<std::string> Document::connectionRefusal(NodeId from, NodeId to, int slot) const {
  const auto count = static_cast<NodeId>(graph_.nodeCount());
  if (from < 0 || from >= count) return "there is no node " + std::to_string(from);
  if (to < 0 || to >= count) return "there is no node " + std::to_string(to);
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

void Document::connect(NodeId from, NodeId to, int slot) {
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
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Connect %1 → %2").arg(from).arg(to));
}

void Document::disconnect(NodeId to, int slot) {
  if (to < 0 || static_cast<size_t>(to) >= graph_.nodeCount()) return;
  Node n = graph_.node(to);
  if (slot < 0 || slot >= static_cast<int>(n.inputs.size())) return;
  if (n.op == Op::Concat) {
    n.inputs.erase(n.inputs.begin() + slot);
  } else {
    n.inputs[static_cast<size_t>(slot)] = kNoNode;
  }
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Disconnect input %1 of %2").arg(slot).arg(to));
}

void Document::setOutput(NodeId id) {
  if (id != kNoNode && (id < 0 || static_cast<size_t>(id) >= graph_.nodeCount())) {
    throw Error("there is no node " + std::to_string(id) + " to make the output");
  }
  if (id == graph_.output()) return;
  pushNodeEdit({}, id, QStringLiteral("Set output"));
}

MoveCommand::Positions Document::plannedMoves(
    const std::vector<std::pair<ItemRef, NodePosition>>& moves) const {
  MoveCommand::Positions plan;  // `after` positions; before() reads the current ones
  for (const auto& [item, pos] : moves) {
    if (item.kind == ItemRef::Kind::Node) {
      if (item.id >= 0 && static_cast<size_t>(item.id) < graph_.nodeCount())
        plan.nodes[item.id] = pos;
      continue;
    }
    if (item.id < 0 || static_cast<size_t>(item.id) >= graph_.groups().size()) continue;
    const std::optional<NodePosition> old = position(item);
    plan.groups[item.id] = pos;
    if (!old) continue;
    // Hidden members, and the boxes of groups nested inside, travel with their box.
    const double dx = pos.x - old->x, dy = pos.y - old->y;
    for (NodeId m : graph_.groups()[static_cast<size_t>(item.id)].nodes) {
      auto it = graph_.layout().find(m);
      if (it != graph_.layout().end())
        plan.nodes.try_emplace(m, NodePosition{it->second.x + dx, it->second.y + dy});
    }
    for (const Group& inner : graph_.groups()) {
      if (inner.parent != item.id) continue;
      auto it = graph_.groupLayout().find(inner.id);
      if (it != graph_.groupLayout().end()) {
        plan.groups.try_emplace(inner.id, NodePosition{it->second.x + dx, it->second.y + dy});
      }
    }
  }
  return plan;
}

MoveCommand::Positions Document::currentPositions(const MoveCommand::Positions& of) const {
  MoveCommand::Positions now;
  for (const auto& [id, pos] : of.nodes) {
    auto it = graph_.layout().find(id);
    now.nodes[id] = it != graph_.layout().end() ? it->second : pos;
  }
  for (const auto& [id, pos] : of.groups) {
    if (graph_.groupLayout().count(id) == 0) {
      now.unsetGroups.push_back(id);
    } else {
      now.groups[id] = graph_.groupLayout().at(id);
    }
  }
  return now;
}

void Document::moveItems(const std::vector<std::pair<ItemRef, NodePosition>>& moves, bool merge) {
  MoveCommand::Positions after = plannedMoves(moves);
  if (after.nodes.empty() && after.groups.empty()) return;
  MoveCommand::Positions before = currentPositions(after);
  restorePositions(after.nodes, after.groups);
  const QString text = moves.size() == 1 ? QStringLiteral("Move")
                                         : QStringLiteral("Move %1 items").arg(moves.size());
  undo_.push(new MoveCommand(this, std::move(before), std::move(after), merge, text));
}

void Document::applyLayout(const std::map<NodeId, NodePosition>& nodes,
                           const std::map<GroupId, NodePosition>& groups, const QString& what) {
  MoveCommand::Positions after;
  for (const auto& [id, pos] : nodes) {
    if (id >= 0 && static_cast<size_t>(id) < graph_.nodeCount()) after.nodes[id] = pos;
  }
  for (const auto& [id, pos] : groups) {
    if (id >= 0 && static_cast<size_t>(id) < graph_.groups().size()) after.groups[id] = pos;
  }
  MoveCommand::Positions before = currentPositions(after);
  restorePositions(after.nodes, after.groups);
  undo_.push(new MoveCommand(this, std::move(before), std::move(after), false, what));
}

void Document::rename(NodeId id, const std::string& name) {
  Node n = graph_.node(id);
  if (n.name == name) return;
  n.name = name;
  pushNodeEdit({std::move(n)}, graph_.output(), QStringLiteral("Rename node %1").arg(id));
}

void Document::setAlwaysPositive(NodeId id, bool positive) {
  Node n = graph_.node(id);
  if (n.alwaysPositive == positive) return;
  n.alwaysPositive = positive;
  pushNodeEdit({std::move(n)}, graph_.output(), QStringLiteral("Always positive %1").arg(id));
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
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Set %1[%2, %3] of node %4 to %5")
                   .arg(QString::fromUtf8(fieldName(field).data()))
                   .arg(row)
                   .arg(col)
                   .arg(id)
                   .arg(QString::fromStdString(value.toString())));
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
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Resize %1 of node %2")
                   .arg(QString::fromUtf8(fieldName(field).data()))
                   .arg(id));
}

void Document::setVector(NodeId id, Field field, ExactVector v) {
  Node n = graph_.node(id);
  if (!hasField(n, field) || !isVectorField(field)) {
    throw Error(describeNode(n) + " has no vector " + std::string(fieldName(field)));
  }
  vectorField(n, field) = std::move(v);
  pushNodeEdit(
      {std::move(n)}, graph_.output(),
      QStringLiteral("Set %1 of node %2").arg(QString::fromUtf8(fieldName(field).data())).arg(id));
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
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Set width of %1 to %2").arg(id).arg(dim));
}

void Document::setSliceRange(NodeId id, int start, int end) {
  Node n = graph_.node(id);
  if (!n.isSlice()) throw Error(describeNode(n) + " is not a Slice");
  if (start < 0 || end <= start) {
    throw Error("a Slice selects rows [start, end) with 0 <= start < end, got [" +
                std::to_string(start) + ", " + std::to_string(end) + ")");
  }
  int width = end;
  if (!n.inputs.empty() && n.inputs[0] >= 0 &&
      static_cast<size_t>(n.inputs[0]) < graph_.nodeCount()) {
    width = graph_.node(n.inputs[0]).dim;
  }
  n.slice = SliceTag{start, end};
  n.dim = end - start;
  n.A = ExactMatrix::selection(start, end, std::max(width, end));
  n.b = zerosVector(n.dim);
  pushNodeEdit({std::move(n)}, graph_.output(),
               QStringLiteral("Slice %1 to [%2, %3)").arg(id).arg(start).arg(end));
}

void Document::placeUnplacedMembers(GroupId id) {
  // Filling in positions that never existed is not an edit of its own: undoing the
  // expansion keeps them, which changes nothing visible.
  std::vector<NodeId> unplaced;
  for (NodeId m : graph_.groups()[static_cast<size_t>(id)].nodes) {
    if (graph_.layout().count(m) == 0) unplaced.push_back(m);
  }
  if (unplaced.empty()) return;
  const NodePosition centre = position(ItemRef{ItemRef::Kind::Group, id}).value_or(NodePosition{});
  graph_.groupLayout().try_emplace(id, centre);
  for (const auto& [nid, pos] : layeredPlacement(graph_, unplaced, centre))
    graph_.layout()[nid] = pos;
}

void Document::setGroupExpanded(GroupId id, bool expanded) {
  if (id < 0 || static_cast<size_t>(id) >= graph_.groups().size()) return;
  const Group& group = graph_.groups()[static_cast<size_t>(id)];
  if (group.expanded == expanded) return;
  const QString text = QStringLiteral("%1 %2").arg(expanded ? "Expand" : "Collapse",
                                                   QString::fromStdString(group.function));
  if (!expanded) {
    undo_.push(new GroupExpandCommand(this, {id}, expanded, text));
    return;
  }
  placeUnplacedMembers(id);
  // One undo step: the moves that make room for the frame, then the expansion.
  std::vector<std::pair<ItemRef, NodePosition>> moves;
  for (const ItemMove& m : roomForExpansion(graph_, id)) {
    const auto kind =
        m.item.kind == VisibleItem::Kind::Node ? ItemRef::Kind::Node : ItemRef::Kind::Group;
    moves.emplace_back(ItemRef{kind, m.item.id}, m.to);
  }
  auto* step = new QUndoCommand(text);
  MoveCommand::Positions after = plannedMoves(moves);
  if (!after.nodes.empty() || !after.groups.empty()) {
    MoveCommand::Positions before = currentPositions(after);
    restorePositions(after.nodes, after.groups);
    new MoveCommand(this, std::move(before), std::move(after), false, text, step);
  }
  new GroupExpandCommand(this, std::vector<GroupId>{id}, expanded, text, step);
  undo_.push(step);
}

void Document::setAllGroupsExpanded(bool expanded) {
  std::vector<GroupId> changed;
  for (const Group& g : graph_.groups()) {
    if (g.expanded != expanded) changed.push_back(g.id);
  }
  if (changed.empty()) return;
  if (expanded) {
    for (GroupId id : changed) placeUnplacedMembers(id);
  }
  undo_.push(new GroupExpandCommand(
      this, std::move(changed), expanded,
      expanded ? QStringLiteral("Expand all groups") : QStringLiteral("Collapse all groups")));
}

}  // namespace lsrl::studio
