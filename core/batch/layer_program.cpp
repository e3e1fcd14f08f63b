#include "core/batch/layer_program.h"

#include <algorithm>

#include "core/util/error.h"

namespace lsrl::batch {

namespace {

float toFloat(const Exact& x) { return static_cast<float>(x.toDouble()); }

std::vector<float> toFloats(const ExactVector& v, int n) {
  std::vector<float> out(static_cast<size_t>(n), 0.0f);
  for (size_t i = 0; i < v.size() && i < out.size(); ++i) out[i] = toFloat(v[i]);
  return out;
}

// Entries that round to 0 in fp32 are dropped (they contribute nothing in fp32).
CsrMatrix toCsr(const ExactMatrix& m) {
  CsrMatrix out;
  out.rows = m.rows();
  out.cols = m.cols();
  out.rowPtr.assign(1, 0);
  for (int r = 0; r < m.rows(); ++r) {
    for (int64_t k = m.rowStart()[static_cast<size_t>(r)];
         k < m.rowStart()[static_cast<size_t>(r) + 1]; ++k) {
      const float v = toFloat(m.values()[static_cast<size_t>(k)]);
      if (v == 0.0f) continue;
      out.col.push_back(static_cast<uint32_t>(m.colIndex()[static_cast<size_t>(k)]));
      out.val.push_back(v);
    }
    out.rowPtr.push_back(static_cast<uint32_t>(out.col.size()));
  }
  return out;
}

std::string describe(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string s = "node " + std::to_string(id) + " (" + std::string(n.countedOpName());
  if (!n.name.empty()) s += " '" + n.name + "'";
  return s + ")";
}

bool isDiagonal(const CsrMatrix& m) {
  for (int r = 0; r < m.rows; ++r)
    for (uint32_t k = m.rowPtr[static_cast<size_t>(r)]; k < m.rowPtr[static_cast<size_t>(r) + 1];
         ++k)
      if (m.col[k] != static_cast<uint32_t>(r)) return false;
  return true;
}

// Every entry inside its row's aligned 2×2 block (rows 2k, 2k+1 × columns 2k, 2k+1).
bool isBlocks2(const CsrMatrix& m) {
  if (m.rows % 2 != 0) return false;
  for (int r = 0; r < m.rows; ++r)
    for (uint32_t k = m.rowPtr[static_cast<size_t>(r)]; k < m.rowPtr[static_cast<size_t>(r) + 1];
         ++k)
      if (m.col[k] / 2 != static_cast<uint32_t>(r) / 2) return false;
  return true;
}

void classify(Layer& layer, CsrMatrix state) {
  const int c = state.rows;
  if (isDiagonal(state)) {
    layer.recurrence = Recurrence::Diagonal;
    layer.diagonal.assign(static_cast<size_t>(c), 0.0f);
    for (int r = 0; r < c; ++r)
      if (state.rowPtr[static_cast<size_t>(r)] < state.rowPtr[static_cast<size_t>(r) + 1])
        layer.diagonal[static_cast<size_t>(r)] = state.val[state.rowPtr[static_cast<size_t>(r)]];
  } else if (isBlocks2(state)) {
    layer.recurrence = Recurrence::Blocks2;
    layer.blocks.assign(static_cast<size_t>(2 * c), 0.0f);
    for (int r = 0; r < c; ++r)
      for (uint32_t k = state.rowPtr[static_cast<size_t>(r)];
           k < state.rowPtr[static_cast<size_t>(r) + 1]; ++k)
        layer.blocks[static_cast<size_t>(4 * (r / 2) + 2 * (r % 2) + state.col[k] % 2)] =
            state.val[k];
  } else {
    layer.recurrence = Recurrence::General;
    layer.state = std::move(state);
  }
}

}  // namespace

int LayerProgram::maxWidth() const {
  int w = std::max(inputWidth, outputWidth);
  for (const Layer& l : layers) w = std::max({w, l.inWidth, l.outWidth});
  return w;
}

std::string_view recurrenceName(Recurrence r) {
  switch (r) {
    case Recurrence::Diagonal:
      return "diagonal";
    case Recurrence::Blocks2:
      return "2x2 blocks";
    case Recurrence::General:
      return "general";
  }
  return "general";
}

LayerProgram layerProgramFromPath(const Graph& path) {
  const std::vector<NodeId> order = path.topologicalOrder();
  if (order.empty() || path.node(order.front()).op != Op::Input)
    throw Error("layer program: the graph does not start with its Input");
  if (order.back() != path.output())
    throw Error("layer program: the output " + describe(path, path.output()) +
                " is not the last node");
  LayerProgram p;
  p.inputWidth = path.node(order.front()).dim;
  for (size_t k = 1; k < order.size(); ++k) {
    const NodeId id = order[k];
    const Node& n = path.node(id);
    for (NodeId x : n.inputs) {
      if (x != order[k - 1])
        throw Error("layer program: " + describe(path, id) + " reads " +
                    (x == kNoNode ? std::string("an unconnected input") : describe(path, x)) +
                    ", not the node before it: the graph is not a path (compile it first)");
    }
    Layer layer;
    layer.inWidth = path.node(order[k - 1]).dim;
    layer.outWidth = n.dim;
    layer.source = describe(path, id);
    switch (n.op) {
      case Op::Input:
        throw Error("layer program: a second Input, " + describe(path, id));
      case Op::Linear:
        layer.kind = Layer::Kind::Linear;
        layer.A = toCsr(n.A);
        layer.bias = toFloats(n.b, n.dim);
        break;
      case Op::Concat: {
        // A Concat of the one node before it (k copies) is a selection.
        layer.kind = Layer::Kind::Linear;
        std::vector<ExactMatrix::Entry> entries;
        for (int i = 0; i < n.dim; ++i) entries.push_back({i, i % layer.inWidth, Exact(1)});
        layer.A = toCsr(ExactMatrix::fromEntries(n.dim, layer.inWidth, std::move(entries)));
        layer.bias.assign(static_cast<size_t>(n.dim), 0.0f);
        break;
      }
      case Op::ReLU:
        layer.kind = Layer::Kind::Relu;
        break;
      case Op::Multi:
        layer.kind = Layer::Kind::Multi;
        break;
      case Op::LinState:
        layer.kind = Layer::Kind::LinState;
        layer.A = toCsr(n.B);
        layer.bias = toFloats(n.bias, n.dim);
        layer.init = toFloats(n.init, n.dim);
        classify(layer, toCsr(n.A));
        break;
    }
    p.layers.push_back(std::move(layer));
  }
  p.outputWidth = path.node(order.back()).dim;
  return p;
}

}  // namespace lsrl::batch
