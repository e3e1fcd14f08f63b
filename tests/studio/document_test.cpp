// The document model: every edit is one undo step that undo and redo replay exactly;
// refused edits say why and change nothing; saves are atomic and round-trip.
#include "app/studio/document/document.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QSignalSpy>
#include <QTemporaryDir>

#include "app/layout/item_size.h"
#include "core/graph/sugar_replay.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::examplePath;

std::string textOf(const Document& doc) { return graphToString(doc.graph()); }

// An Input feeding a Linear (2 -> 2) feeding a ReLU, the ReLU the output.
Graph smallGraph() {
  Graph g;
  const NodeId x = g.addInput(2, "x");
  const NodeId l = g.addLinear(x, ExactMatrix::identity(2), zerosVector(2), "lin");
  const NodeId r = g.addReLU(l);
  g.setOutput(r);
  g.layout()[x] = {0, 0};
  g.layout()[l] = {200, 0};
  g.layout()[r] = {400, 0};
  return g;
}

TEST(Document, MatrixEntryEditUndoRedoIsExact) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  const std::string original = textOf(doc);
  doc.setEntry(1, Field::A, 0, 1, Exact::parse("sqrt(3)/2"));
  EXPECT_EQ(doc.graph().node(1).A.at(0, 1), Exact::parse("sqrt(3)/2"));
  EXPECT_TRUE(doc.isModified());
  const std::string edited = textOf(doc);
  doc.undoStack()->undo();
  EXPECT_EQ(textOf(doc), original);
  EXPECT_FALSE(doc.isModified());
  doc.undoStack()->redo();
  EXPECT_EQ(textOf(doc), edited);
  EXPECT_EQ(doc.undoStack()->count(), 1);
}

// A sugar call's constant, set in Properties: the call is made again with it, one undo
// step; values that do not parse, operands and shape changes are refused with the reason.
TEST(Document, ASugarConstantRebuildsTheCallAsOneUndoStep) {
  Document doc;
  doc.openFile(test::examplePath("tok2tok_L3_direct.json"));
  const std::string before = doc.toText();
  // Group 7 is f_larger(x, y = 5/2, scale = 1000): its comparison's offset is -y.
  const Group& larger = doc.graph().groups()[7];
  ASSERT_EQ(larger.function, "f_larger");
  EXPECT_TRUE(doc.isEditableParameter(7, "y"));
  EXPECT_TRUE(doc.isEditableParameter(7, "scale"));
  EXPECT_FALSE(doc.isEditableParameter(7, "x"));  // an operand: "node N"
  doc.setGroupParameter(7, "y", "3/2");
  EXPECT_EQ(*findParam(doc.graph().groups()[7].params, "y"), "3/2");
  EXPECT_NE(doc.toText(), before);
  EXPECT_EQ(doc.undoStack()->count(), 1);
  EXPECT_EQ(doc.undoStack()->undoText(), QStringLiteral("Set y of f_larger"));
  doc.undoStack()->undo();
  EXPECT_EQ(doc.toText(), before);
  doc.undoStack()->redo();
  EXPECT_EQ(*findParam(doc.graph().groups()[7].params, "y"), "3/2");
  doc.undoStack()->undo();

  auto refusal = [&](GroupId id, const std::string& key, const std::string& value) {
    try {
      doc.setGroupParameter(id, key, value);
    } catch (const Error& e) {
      EXPECT_EQ(doc.toText(), before) << "a refused value changes nothing";
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(7, "y", "five").find("y of f_larger (group 7): \"five\" is not a number"),
            std::string::npos);
  EXPECT_EQ(refusal(7, "x", "1"), "f_larger (group 7) has no constant parameter \"x\"");
  // f_modulo_counter's divisor sets the counter's width: another shape.
  EXPECT_NE(refusal(1, "divisor", "4").find("divisor = 4 cannot be set on f_modulo_counter"),
            std::string::npos);
  EXPECT_EQ(doc.undoStack()->index(), 0) << "no refused edit is on the undo stack";
  EXPECT_EQ(doc.undoStack()->count(), 1);
}

TEST(Document, ResizingAPropagatesWidthsDownstream) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  doc.setMatrix(1, Field::A, ExactMatrix(3, 2));
  EXPECT_EQ(doc.graph().node(1).dim, 3);
  EXPECT_EQ(doc.graph().node(1).b.size(), 3u);
  EXPECT_EQ(doc.graph().node(2).dim, 3) << "the ReLU follows its input's width";
  EXPECT_TRUE(doc.problems().empty());
  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph().node(2).dim, 2);
}

TEST(Document, WidthMismatchIsAllowedAndReported) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  QSignalSpy problems(&doc, &Document::problemsChanged);
  doc.setInputWidth(0, 5);
  ASSERT_FALSE(doc.problemsOf(1).empty());
  const std::string message = doc.problemsOf(1).front().message;
  EXPECT_NE(message.find('5'), std::string::npos) << message;
  EXPECT_GE(problems.count(), 1);
  doc.undoStack()->undo();
  EXPECT_TRUE(doc.problems().empty());
}

TEST(Document, ConnectionsThatWouldCycleOrFeedTheInputAreRefusedWithAReason) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  auto cycle = doc.connectionRefusal(2, 1);
  ASSERT_TRUE(cycle.has_value());
  EXPECT_NE(cycle->find("cycle"), std::string::npos) << *cycle;
  auto intoInput = doc.connectionRefusal(1, 0);
  ASSERT_TRUE(intoInput.has_value());
  EXPECT_NE(intoInput->find("input"), std::string::npos) << *intoInput;
  auto self = doc.connectionRefusal(1, 1);
  ASSERT_TRUE(self.has_value());
  const std::string before = textOf(doc);
  EXPECT_THROW(doc.connect(2, 1), Error);
  EXPECT_EQ(textOf(doc), before);
  EXPECT_EQ(doc.undoStack()->count(), 0);
}

TEST(Document, AddConnectAndRemoveAreUndoable) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  const std::string original = textOf(doc);
  const NodeId concat = doc.addPrimitive(Op::Concat, 1, {600, 0});
  EXPECT_EQ(doc.problemsOf(concat).size(), 1u) << "a Concat without inputs is a problem";
  doc.connect(2, concat);
  doc.connect(0, concat);
  EXPECT_EQ(doc.graph().node(concat).dim, 4);
  EXPECT_TRUE(doc.problemsOf(concat).empty());
  doc.setOutput(concat);
  const std::string built = textOf(doc);
  // Removing the Linear keeps every other id (the ReLU stays #2, the Concat #3) and
  // leaves the ReLU unconnected.
  doc.removeNodes({1});
  EXPECT_EQ(doc.graph().liveNodeCount(), 3u);
  EXPECT_FALSE(doc.graph().contains(1));
  EXPECT_EQ(doc.graph().node(2).op, Op::ReLU);
  EXPECT_EQ(doc.graph().node(2).inputs, std::vector<NodeId>{kNoNode});
  EXPECT_EQ(doc.graph().node(concat).op, Op::Concat);
  EXPECT_FALSE(doc.problemsOf(2).empty());
  // The file is written with consecutive ids.
  EXPECT_EQ(graphFromString(textOf(doc), "saved").nodeCount(), 3u);
  doc.undoStack()->undo();
  EXPECT_EQ(textOf(doc), built);
  for (int i = 0; i < 4; ++i) doc.undoStack()->undo();
  EXPECT_EQ(textOf(doc), original);
  for (int i = 0; i < 5; ++i) doc.undoStack()->redo();
  EXPECT_EQ(doc.graph().liveNodeCount(), 3u);
  EXPECT_FALSE(doc.graph().contains(1));
}

TEST(Document, MovesOfOneDragMergeIntoOneStep) {
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  const ItemRef lin{ItemRef::Kind::Node, 1};
  doc.moveItems({{lin, {210, 5}}}, true);
  doc.moveItems({{lin, {220, 10}}}, true);
  EXPECT_EQ(doc.undoStack()->count(), 1);
  EXPECT_EQ(doc.position(lin)->x, 220);
  doc.undoStack()->undo();
  EXPECT_EQ(doc.position(lin)->x, 200);
}

TEST(Document, CollapseAndExpandAreUndoable) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  ASSERT_FALSE(doc.graph().groups().empty());
  const size_t collapsedItems = doc.visible().items.size();
  doc.setAllGroupsExpanded(true);
  EXPECT_GT(doc.visible().items.size(), collapsedItems);
  doc.undoStack()->undo();
  EXPECT_EQ(doc.visible().items.size(), collapsedItems);
  doc.setGroupExpanded(0, true);
  EXPECT_TRUE(doc.graph().groups()[0].expanded);
  doc.undoStack()->undo();
  EXPECT_FALSE(doc.graph().groups()[0].expanded);
}

// Boxes overlap when the rectangles of their centres and item sizes do.
bool anyOverlap(const Document& doc) {
  struct R {
    double l, t, r, b;
  };
  std::vector<R> boxes;
  for (const VisibleItem& item : doc.visible().items) {
    const ItemRef ref{
        item.kind == VisibleItem::Kind::Node ? ItemRef::Kind::Node : ItemRef::Kind::Group, item.id};
    const auto at = doc.position(ref);
    if (!at) continue;
    const ItemSize s = itemSize(doc.graph(), item);
    boxes.push_back(
        {at->x - s.width / 2, at->y - s.height / 2, at->x + s.width / 2, at->y + s.height / 2});
  }
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const R& a = boxes[i];
      const R& b = boxes[j];
      if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) {
        return true;
      }
    }
  }
  return false;
}

TEST(Document, ExpandingAGroupMakesRoomAndUndoPutsEverythingBack) {
  Document doc;
  doc.openFile(examplePath("tok2tok_L3_direct.json"));
  ASSERT_FALSE(anyOverlap(doc)) << "the stored layout has no overlaps";
  const std::string before = graphToString(doc.graph());
  // The first top-level group with nested groups inside (f_modulo_counter holds f_larger).
  GroupId outer = kNoGroup;
  for (const Group& g : doc.graph().groups()) {
    if (g.parent != kNoGroup || outer != kNoGroup) continue;
    for (const Group& h : doc.graph().groups()) {
      if (h.parent == g.id) outer = g.id;
    }
  }
  ASSERT_NE(outer, kNoGroup);
  doc.setGroupExpanded(outer, true);
  EXPECT_EQ(doc.undoStack()->count(), 1) << "making room and expanding are one step";
  EXPECT_FALSE(anyOverlap(doc)) << "the expanded group's members overlap other boxes";
  doc.undoStack()->undo();
  EXPECT_TRUE(graphToString(doc.graph()) == before) << "undo did not restore the layout exactly";
}

TEST(Document, SaveAndReopenGivesTheIdenticalGraph) {
  QTemporaryDir dir;
  Document doc;
  doc.openFile(examplePath("tok2tok_L3_direct.json"));
  NodeId linear = kNoNode;
  for (const Node& n : doc.graph().nodes()) {
    if (n.op == Op::Linear && !n.isSlice() && linear == kNoNode) linear = n.id;
  }
  ASSERT_NE(linear, kNoNode);
  doc.setEntry(linear, Field::b, 0, 0, Exact::parse("-1e10"));
  const QString path = dir.filePath(QStringLiteral("edited.json"));
  doc.saveTo(path);
  EXPECT_FALSE(doc.isModified());
  EXPECT_EQ(doc.filePath(), path);
  Document reopened;
  reopened.openFile(path);
  EXPECT_EQ(textOf(reopened), textOf(doc));
  EXPECT_EQ(reopened.graph().node(linear).b[0], Exact::parse("-1e10"));
}

TEST(Document, AFailedSaveKeepsTheOldFileAndSaysWhy) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("kept.json"));
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  doc.saveTo(path);
  const std::string old = readWholeFile(path.toStdString());
  ASSERT_EQ(::chmod(path.toLocal8Bit().constData(), 0444), 0);
  doc.rename(1, "renamed");
  try {
    doc.saveTo(path);
    FAIL() << "saving over a read-only file succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  EXPECT_EQ(readWholeFile(path.toStdString()), old);
  EXPECT_TRUE(doc.isModified()) << "the edit is still unsaved";
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files).size(), 1) << "no temporary file is left";
}

TEST(Document, AbsurdPositionsCountAsUnplaced) {
  Graph g = smallGraph();
  g.layout()[1] = {1e300, -1e300};
  Document doc;
  doc.setGraph(std::move(g), nullptr, "far away");
  EXPECT_FALSE(doc.position(ItemRef{ItemRef::Kind::Node, 1}).has_value());
  EXPECT_TRUE(doc.position(ItemRef{ItemRef::Kind::Node, 0}).has_value());
}

TEST(Document, OpeningAMalformedFileLeavesTheDocumentAsItWas) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("bad.json"));
  writeFileAtomically(path.toStdString(),
                      "{\"format\": \"lsrl-graph\", \"version\": 99, \"nodes\": []}");
  Document doc;
  doc.setGraph(smallGraph(), nullptr, "small");
  const std::string before = textOf(doc);
  try {
    doc.openFile(path);
    FAIL() << "a version 99 file opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
  EXPECT_EQ(textOf(doc), before);
}

}  // namespace
}  // namespace lsrl::studio
