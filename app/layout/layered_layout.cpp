#include "app/layout/layered_layout.h"

#include <algorithm>
#include <cmath>

#include "app/layout/item_size.h"

namespace lsrl {

namespace {

// Gap between the columns one crowded layer is cut into.
constexpr double kColumnGap = 2 * kSiblingGap;

struct ItemEdges {
  std::vector<std::vector<int>> readers;  // per item: the items reading it
  std::vector<std::vector<int>> inputs;   // per item: the items it reads
};

ItemEdges itemEdges(const VisibleGraph& vg) {
  ItemEdges out;
  out.readers.resize(vg.items.size());
  out.inputs.resize(vg.items.size());
  for (const VisibleEdge& e : vg.edges) {
    if (e.from < 0 || e.to < 0 || e.from == e.to) continue;
    out.readers[static_cast<size_t>(e.from)].push_back(e.to);
    out.inputs[static_cast<size_t>(e.to)].push_back(e.from);
  }
  return out;
}

// Longest-path layer of every item (Kahn's algorithm in item order).
std::vector<int> itemLayers(const ItemEdges& edges) {
  const size_t n = edges.readers.size();
  std::vector<int> layer(n, 0);
  std::vector<size_t> pending(n);
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i) {
    pending[i] = edges.inputs[i].size();
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  for (size_t next = 0; next < ready.size(); ++next) {
    const auto item = static_cast<size_t>(ready[next]);
    for (int r : edges.readers[item]) {
      const auto reader = static_cast<size_t>(r);
      layer[reader] = std::max(layer[reader], layer[item] + 1);
      if (--pending[reader] == 0) ready.push_back(r);
    }
  }
  return layer;
}

}  // namespace

std::vector<NodePosition> layeredCentres(const Graph& g, const VisibleGraph& vg) {
  const size_t n = vg.items.size();
  std::vector<NodePosition> centre(n);
  if (n == 0) return centre;
  const ItemEdges edges = itemEdges(vg);
  const std::vector<int> layer = itemLayers(edges);
  const int layers = *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<std::vector<int>> byLayer(static_cast<size_t>(layers));
  for (size_t i = 0; i < n; ++i)
    byLayer[static_cast<size_t>(layer[i])].push_back(static_cast<int>(i));

  // One sweep left to right: an item sits at the mean relative height of its inputs in
  // earlier layers; an item without such inputs keeps its place in item order.
  std::vector<double> height(n, 0);  // 0..1 within its layer, once the layer is ordered
  std::vector<ItemSize> size(n);
  for (size_t i = 0; i < n; ++i) size[i] = itemSize(g, vg.items[i]);
  // Boxes with their gaps are about three times wider than tall: columns of 2 sqrt(n)
  // boxes make a roughly square picture of a big graph cut into columns.
  const size_t columnCap =
      std::max(kMinColumnItems, static_cast<size_t>(2 * std::sqrt(static_cast<double>(n))));
  double x = 0;
  std::vector<std::pair<double, std::vector<int>>> columns;  // (x centre, items)
  std::vector<double> columnHeight;
  for (auto& items : byLayer) {
    std::vector<double> key(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      const auto item = static_cast<size_t>(items[k]);
      double sum = 0;
      int count = 0;
      for (int in : edges.inputs[item]) {
        if (layer[static_cast<size_t>(in)] >= layer[item]) continue;
        sum += height[static_cast<size_t>(in)];
        ++count;
      }
      key[k] = count > 0 ? sum / count : static_cast<double>(k) / static_cast<double>(items.size());
    }
    std::vector<size_t> order(items.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key[a] < key[b]; });
    std::vector<int> sorted;
    sorted.reserve(items.size());
    for (size_t k = 0; k < order.size(); ++k) {
      sorted.push_back(items[order[k]]);
      height[static_cast<size_t>(items[order[k]])] =
          static_cast<double>(k) / static_cast<double>(std::max<size_t>(1, items.size() - 1));
    }
    for (size_t start = 0; start < sorted.size(); start += columnCap) {
      const size_t end = std::min(sorted.size(), start + columnCap);
      std::vector<int> column(sorted.begin() + static_cast<long>(start),
                              sorted.begin() + static_cast<long>(end));
      double width = 0;
      double tall = 0;
      for (int item : column) {
        width = std::max(width, size[static_cast<size_t>(item)].width);
        tall += size[static_cast<size_t>(item)].height + kSiblingGap;
      }
      if (start > 0) x += kColumnGap - kLayerGap;
      columns.push_back({x + width / 2, std::move(column)});
      columnHeight.push_back(tall - kSiblingGap);
      x += width + kLayerGap;
    }
  }
  const double tallest = *std::max_element(columnHeight.begin(), columnHeight.end());
  for (size_t c = 0; c < columns.size(); ++c) {
    double y = (tallest - columnHeight[c]) / 2;
    for (int item : columns[c].second) {
      const ItemSize s = size[static_cast<size_t>(item)];
      centre[static_cast<size_t>(item)] = {columns[c].first, y + s.height / 2};
      y += s.height + kSiblingGap;
    }
  }
  return centre;
}

LayoutResult layeredLayout(const Graph& g) {
  const VisibleGraph vg = visibleGraph(g);
  return layoutFromItemCentres(g, vg, layeredCentres(g, vg));
}

}  // namespace lsrl
