#include "app/layout/dot_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/layout/incremental_layout.h"
#include "app/layout/item_size.h"
#include "app/layout/visible_graph.h"
#include "core/util/error.h"

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

}  // namespace

LayoutResult dotLayout(const Graph& g) {
  const VisibleGraph vg = visibleGraph(g);
  LayoutResult result;
  if (vg.items.empty()) return result;

  std::vector<NodePosition> centre(vg.items.size());
  {
    const std::lock_guard<std::mutex> lock(graphvizMutex());
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
      agedge(root, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)], nullptr,
             1);
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
  }

  std::vector<std::vector<NodeId>> hidden(vg.items.size());
  for (size_t id = 0; id < vg.itemOfNode.size(); ++id) {
    if (vg.itemOfNode[id] < 0) continue;  // a deleted node (an editor tombstone)
    const auto item = static_cast<size_t>(vg.itemOfNode[id]);
    if (vg.items[item].kind == VisibleItem::Kind::Node) {
      result.nodes[static_cast<NodeId>(id)] = centre[item];
    } else {
      hidden[item].push_back(static_cast<NodeId>(id));
    }
  }
  for (size_t i = 0; i < vg.items.size(); ++i) {
    if (vg.items[i].kind != VisibleItem::Kind::Group) continue;
    result.groups[vg.items[i].id] = centre[i];
    for (const auto& [id, pos] : layeredPlacement(g, hidden[i], centre[i])) result.nodes[id] = pos;
  }
  return result;
}

}  // namespace lsrl
