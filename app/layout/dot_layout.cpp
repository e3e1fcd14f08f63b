#include "app/layout/dot_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/layout/incremental_layout.h"
#include "app/layout/item_size.h"
#include "app/layout/layout_result.h"
#include "app/layout/visible_graph.h"
#include "core/util/error.h"
#include "core/util/forked_call.h"

namespace lsrl {

namespace {

constexpr double kPointsPerInch = 72;  // dot sizes are inches, coordinates points = px

std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

// Graphviz's API takes char* for names and values it only reads.
char* text(std::string& s) { return s.data(); }

std::string inches(double px) { return std::to_string(px / kPointsPerInch); }

void setAttr(void* object, const char* name, std::string value) {
  std::string key = name;
  std::string empty;
  agsafeset(object, text(key), text(value), text(empty));
}

// Frees what Graphviz allocated, also when an error is thrown.
struct GraphCloser {
  explicit GraphCloser(GVC_t* context) : gvc(context) {}
  GraphCloser(const GraphCloser&) = delete;
  GraphCloser& operator=(const GraphCloser&) = delete;
  GVC_t* gvc = nullptr;
  Agraph_t* graph = nullptr;
  bool laidOut = false;
  ~GraphCloser() {
    if (laidOut) gvFreeLayout(gvc, graph);
    if (graph) agclose(graph);
    if (gvc) gvFreeContext(gvc);
  }
};

// The cluster subgraph of an expanded group (created on first use, nested in the
// cluster of its nearest expanded ancestor), or the root graph for no group.
class Clusters {
 public:
  Clusters(const Graph& g, Agraph_t* root)
      : g_(g), root_(root), made_(g.groups().size(), nullptr) {}

  Agraph_t* of(GroupId id) {
    if (id < 0 || static_cast<size_t>(id) >= g_.groups().size()) return root_;
    Agraph_t*& sub = made_[static_cast<size_t>(id)];
    if (sub) return sub;
    const GroupId parent = g_.groups()[static_cast<size_t>(id)].parent;
    Agraph_t* outer = parent >= 0 && parent < id ? of(parent) : root_;
    std::string name("cluster_");
    name += std::to_string(id);
    sub = agsubg(outer, text(name), 1);
    // Room for the frame the editor draws (padding and title bar) on every side, so
    // frames never cover their neighbours.
    setAttr(sub, "margin", std::to_string(static_cast<int>(kFramePadding + kFrameTitleHeight)));
    return sub;
  }

 private:
  const Graph& g_;
  Agraph_t* root_;
  std::vector<Agraph_t*> made_;
};

// dot's centre of each item of vg. The caller holds graphvizMutex() (or is a forked copy
// with no other thread).
std::vector<NodePosition> dotCentres(const Graph& g, const VisibleGraph& vg) {
  std::vector<NodePosition> centre(vg.items.size());
  if (vg.items.empty()) return centre;
  agseterr(AGMAX);  // keep Graphviz's messages off stderr; aglasterr() has them
  GraphCloser guard(gvContext());
  if (!guard.gvc) throw Error("dot layout: cannot create a Graphviz context");
  std::string name = "lsrl";
  guard.graph = agopen(text(name), Agdirected, nullptr);
  Agraph_t* root = guard.graph;
  setAttr(root, "rankdir", "LR");
  setAttr(root, "ranksep", inches(kLayerGap));
  setAttr(root, "nodesep", inches(kSiblingGap));
  setAttr(root, "splines", "false");  // edges are drawn by the editor, not by dot
  setAttr(root, "newrank", "true");   // rank across clusters: every edge points right

  Clusters clusters(g, root);
  std::vector<Agnode_t*> nodes(vg.items.size());
  for (size_t i = 0; i < vg.items.size(); ++i) {
    const VisibleItem& item = vg.items[i];
    std::string key = std::to_string(i);  // dot node names: item indices
    // The enclosing group of the item: a node's own group, a box's parent group.
    GroupId enclosing = kNoGroup;
    if (item.kind == VisibleItem::Kind::Node) {
      enclosing = g.node(item.id).group;
    } else {
      enclosing = g.groups()[static_cast<size_t>(item.id)].parent;
    }
    Agraph_t* owner = clusters.of(enclosing);
    Agnode_t* n = agnode(owner, text(key), 1);
    const ItemSize size = itemSize(g, item);
    setAttr(n, "shape", "box");
    setAttr(n, "fixedsize", "true");
    setAttr(n, "label", "");
    setAttr(n, "width", inches(size.width));
    setAttr(n, "height", inches(size.height));
    nodes[i] = n;
  }
  std::set<std::pair<int, int>> seen;
  for (const VisibleEdge& e : vg.edges) {
    if (e.from == e.to || !seen.insert({e.from, e.to}).second) continue;
    agedge(root, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)], nullptr, 1);
  }

  if (gvLayout(guard.gvc, root, "dot") != 0) {
    const char* why = aglasterr();
    throw Error(std::string("dot layout failed: ") + (why ? why : "unknown Graphviz error"));
  }
  guard.laidOut = true;
  // Graphviz's y axis points up; the scene's points down from the top-left corner.
  const boxf bb = GD_bb(root);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const pointf p = ND_coord(nodes[i]);
    centre[i] = {p.x - bb.LL.x, bb.UR.y - p.y};
  }
  return centre;
}

}  // namespace

LayoutResult dotLayout(const Graph& g) {
  const VisibleGraph vg = visibleGraph(g);
  std::vector<NodePosition> centres;
  {
    const std::lock_guard<std::mutex> lock(graphvizMutex());
    centres = dotCentres(g, vg);
  }
  return layoutFromItemCentres(g, vg, centres);
}

LayoutResult dotLayoutIsolated(const Graph& g, int timeoutMs, const std::atomic<bool>* cancel) {
  const VisibleGraph vg = visibleGraph(g);
  ForkedCallResult call;
  {
    // Held across the fork, so that the copy never starts with another thread inside
    // Graphviz; the copy is that thread's only twin and calls dotCentres unlocked.
    const std::lock_guard<std::mutex> lock(graphvizMutex());
    call = callInForkedCopy(
        [&] {
          const std::vector<NodePosition> centres = dotCentres(g, vg);
          return std::string(reinterpret_cast<const char*>(centres.data()),
                             centres.size() * sizeof(NodePosition));
        },
        timeoutMs, cancel);
  }
  if (call.ending == ForkedCallResult::Ending::Cancelled) throw Cancelled("dot layout cancelled");
  if (call.ending == ForkedCallResult::Ending::Failed) throw Error(call.output);
  if (call.ending != ForkedCallResult::Ending::Finished)
    throw Error("dot " + describeForkedEnding(call, timeoutMs));
  if (call.output.size() != vg.items.size() * sizeof(NodePosition))
    throw Error("dot layout: the worker returned " + std::to_string(call.output.size()) +
                " bytes, expected " + std::to_string(vg.items.size() * sizeof(NodePosition)));
  std::vector<NodePosition> centres(vg.items.size());
  std::memcpy(centres.data(), call.output.data(), call.output.size());
  return layoutFromItemCentres(g, vg, centres);
}

}  // namespace lsrl
