#include "core/float_batch/layer_program.h"

#include <algorithm>

#include "core/graph/checks.h"
#include "core/graph/node_description.h"
#include "core/util/error.h"

namespace lsrl::float_batch {

namespace {

// The nearest double; a float through it (docs/vulkan.md, "Layers").
template <class Scalar>
Scalar rounded(const Exact& x) {
  return static_cast<Scalar>(x.toDouble());
}

template <class Scalar>
std::vector<Scalar> rounded(const ExactVector& v, int n) {
  std::vector<Scalar> out(static_cast<size_t>(n), Scalar(0));
  for (size_t i = 0; i < v.size() && i < out.size(); ++i) out[i] = rounded<Scalar>(v[i]);
  return out;
}

// Entries that round to 0 are dropped (they contribute nothing in that precision).
template <class Scalar>
BasicCsrMatrix<Scalar> toCsr(const ExactMatrix& m) {
  BasicCsrMatrix<Scalar> out;
  out.rows = m.rows();
  out.cols = m.cols();
  out.rowPtr.assign(1, 0);
  for (int r = 0; r < m.rows(); ++r) {
    for (int64_t k = m.rowStart()[static_cast<size_t>(r)];
         k < m.rowStart()[static_cast<size_t>(r) + 1]; ++k) {
      const Scalar v = rounded<Scalar>(m.values()[static_cast<size_t>(k)]);
      if (v == Scalar(0)) continue;
      out.col.push_back(static_cast<uint32_t>(m.colIndex()[static_cast<size_t>(k)]));
      out.val.push_back(v);
    }
    out.rowPtr.push_back(static_cast<uint32_t>(out.col.size()));
  }
  return out;
}

template <class Scalar>
bool isDiagonal(const BasicCsrMatrix<Scalar>& m) {
  for (int r = 0; r < m.rows; ++r)
    for (uint32_t k = m.rowPtr[static_cast<size_t>(r)]; k < m.rowPtr[static_cast<size_t>(r) + 1];
         ++k)
      if (m.col[k] != static_cast<uint32_t>(r)) return false;
  return true;
}

// Every entry inside its row's aligned 2×2 block (rows 2k, 2k+1 × columns 2k, 2k+1).
template <class Scalar>
bool isBlocks2(const BasicCsrMatrix<Scalar>& m) {
  if (m.rows % 2 != 0) return false;
  for (int r = 0; r < m.rows; ++r)
    for (uint32_t k = m.rowPtr[static_cast<size_t>(r)]; k < m.rowPtr[static_cast<size_t>(r) + 1];
         ++k)
      if (m.col[k] / 2 != static_cast<uint32_t>(r) / 2) return false;
  return true;
}

}  // namespace

template <class Scalar>
void classifyRecurrence(BasicLayer<Scalar>& layer, BasicCsrMatrix<Scalar> state) {
  const int c = state.rows;
  if (isDiagonal(state)) {
    layer.recurrence = Recurrence::Diagonal;
    layer.diagonal.assign(static_cast<size_t>(c), Scalar(0));
    for (int r = 0; r < c; ++r)
      if (state.rowPtr[static_cast<size_t>(r)] < state.rowPtr[static_cast<size_t>(r) + 1])
        layer.diagonal[static_cast<size_t>(r)] = state.val[state.rowPtr[static_cast<size_t>(r)]];
  } else if (isBlocks2(state)) {
    layer.recurrence = Recurrence::Blocks2;
    layer.blocks.assign(static_cast<size_t>(2 * c), Scalar(0));
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

template <class Scalar>
int BasicLayerProgram<Scalar>::maxWidth() const {
  int w = std::max(inputWidth, outputWidth);
  for (const BasicLayer<Scalar>& l : layers) w = std::max({w, l.inWidth, l.outWidth});
  return w;
}

namespace {

bool isElementwise(Layer::Kind kind) {
  return kind == Layer::Kind::Relu || kind == Layer::Kind::Add || kind == Layer::Kind::Mul;
}

size_t inputCount(Layer::Kind kind) {
  switch (kind) {
    case Layer::Kind::Add:
    case Layer::Kind::Mul:
      return 2;
    case Layer::Kind::RgLru:
      return 3;
    default:
      return 1;
  }
}

// Throws unless `what` has `expected` entries; `at` names the layer.
void expectSize(const std::string& at, const std::string& what, size_t expected, size_t got) {
  if (expected != got)
    throw Error(at + ": " + what + " has " + std::to_string(got) + " entries, expected " +
                std::to_string(expected));
}

template <class Scalar>
void expectShape(const std::string& at, const std::string& what, const BasicCsrMatrix<Scalar>& m,
                 int rows, int cols) {
  if (m.rows != rows || m.cols != cols || m.rowPtr.size() != static_cast<size_t>(rows) + 1 ||
      m.col.size() != m.val.size() || m.rowPtr.back() != m.col.size())
    throw Error(at + ": " + what + " is " + std::to_string(m.rows) + "x" + std::to_string(m.cols) +
                " (" + std::to_string(m.col.size()) + " entries), expected " +
                std::to_string(rows) + "x" + std::to_string(cols) + " in CSR form");
}

// The checks of one layer whose inputs have the widths `w`.
template <class Scalar>
void validateLayer(const BasicLayer<Scalar>& L, const std::string& at, const std::vector<int>& w) {
  const int H = L.outWidth;
  const size_t h = static_cast<size_t>(H);
  auto needInputWidth = [&](size_t i, int expected) {
    if (w[i] != expected)
      throw Error(at + ": input " + std::to_string(i) + " is " + std::to_string(w[i]) +
                  " wide, expected " + std::to_string(expected));
  };
  switch (L.kind) {
    case Layer::Kind::Linear:
    case Layer::Kind::LinState:
      expectShape(at, "its matrix", L.A, H, w[0]);
      expectSize(at, "its bias", h, L.bias.size());
      break;
    case Layer::Kind::Relu:
    case Layer::Kind::Add:
    case Layer::Kind::Mul:
    case Layer::Kind::RgLru:
      for (size_t i = 0; i < w.size(); ++i) needInputWidth(i, H);
      break;
    case Layer::Kind::Multi:
      needInputWidth(0, 2 * H);
      break;
    case Layer::Kind::Conv1d:
      needInputWidth(0, H);
      if (L.convWidth < 1) throw Error(at + ": conv width " + std::to_string(L.convWidth));
      expectSize(at, "its taps", h * static_cast<size_t>(L.convWidth), L.taps.size());
      expectSize(at, "its bias", h, L.bias.size());
      break;
    case Layer::Kind::GruCell:
    case Layer::Kind::LstmCell: {
      const int gates = L.kind == Layer::Kind::GruCell ? 3 : 4;
      needInputWidth(0, gates * H);
      expectShape(at, "W_hh", L.state, gates * H, H);
      expectSize(at, "b_hh", static_cast<size_t>(gates) * h, L.bias.size());
      expectSize(at, "h0", h, L.init.size());
      if (L.kind == Layer::Kind::LstmCell) expectSize(at, "c0", h, L.cellInit.size());
      break;
    }
  }
  if (L.kind == Layer::Kind::LinState) {
    expectSize(at, "its initial state", h, L.init.size());
    switch (L.recurrence) {
      case Recurrence::Diagonal:
        expectSize(at, "its diagonal", h, L.diagonal.size());
        break;
      case Recurrence::Blocks2:
        if (H % 2 != 0)
          throw Error(at + ": 2x2 blocks need an even width, got " + std::to_string(H));
        expectSize(at, "its blocks", 2 * h, L.blocks.size());
        break;
      case Recurrence::General:
        expectShape(at, "its transition", L.state, H, H);
        break;
    }
    if (L.reluState && L.recurrence != Recurrence::General)
      throw Error(at + ": a ReLU state needs the general (sequential) recurrence");
  }
  if (L.kind == Layer::Kind::RgLru) expectSize(at, "its decay base", h, L.diagonal.size());
}

}  // namespace

template <class Scalar>
void BasicLayerProgram<Scalar>::validate() const {
  if (maxSteps < 0) throw Error("layer program: horizon " + std::to_string(maxSteps));
  for (size_t k = 0; k < layers.size(); ++k) {
    const BasicLayer<Scalar>& L = layers[k];
    const std::string at =
        "layer " + std::to_string(k) + (L.source.empty() ? "" : " (" + L.source + ")");
    if (L.outWidth < 1) throw Error(at + ": width " + std::to_string(L.outWidth));
    if (L.inputs.size() != inputCount(L.kind))
      throw Error(at + ": reads " + std::to_string(L.inputs.size()) + " inputs, expected " +
                  std::to_string(inputCount(L.kind)));
    std::vector<int> widths;
    for (const int in : L.inputs) {
      if (in != kTokens && (in < 0 || in >= static_cast<int>(k)))
        throw Error(at + ": reads layer " + std::to_string(in) + ", not an earlier layer");
      widths.push_back(in == kTokens ? inputWidth : layers[static_cast<size_t>(in)].outWidth);
    }
    if (L.inWidth != widths[0])
      throw Error(at + ": inWidth " + std::to_string(L.inWidth) + " but its input is " +
                  std::to_string(widths[0]) + " wide");
    validateLayer(L, at, widths);
  }
  const int last = layers.empty() ? inputWidth : layers.back().outWidth;
  if (last != outputWidth)
    throw Error("layer program: output width " + std::to_string(outputWidth) +
                " but the last layer writes " + std::to_string(last));
}

template <class Scalar>
void checkHorizon(const BasicLayerProgram<Scalar>& program, int steps, const std::string& runner) {
  if (program.maxSteps > 0 && steps > program.maxSteps)
    throw Error(runner + ": " + std::to_string(steps) +
                " tokens exceed the horizon T = " + std::to_string(program.maxSteps) + " that " +
                (program.name.empty() ? std::string("the model") : program.name) +
                " was built for");
}

template <class Scalar>
bool BufferPlan::inPlace(const BasicLayerProgram<Scalar>& p, size_t layer) const {
  const int in = p.layers[layer].inputs.at(0);
  return in != kTokens && bufferOf[static_cast<size_t>(in)] == bufferOf[layer];
}

template <class Scalar>
BufferPlan planBuffers(const BasicLayerProgram<Scalar>& program, bool keepEveryLayer) {
  const size_t n = program.layers.size();
  // The last layer reading each output; the program's output lives to the end.
  std::vector<size_t> lastUse(n, 0);
  for (size_t k = 0; k < n; ++k)
    for (const int in : program.layers[k].inputs)
      if (in != kTokens) lastUse[static_cast<size_t>(in)] = k;
  if (n > 0) lastUse[n - 1] = n;
  BufferPlan plan;
  plan.bufferOf.assign(n, -1);
  std::vector<int> idle;
  for (size_t k = 0; k < n; ++k) {
    const BasicLayer<Scalar>& L = program.layers[k];
    const int first = L.inputs.at(0);
    int buffer = -1;
    if (keepEveryLayer) {
      buffer = static_cast<int>(plan.bufferWidth.size());
    } else if (isElementwise(L.kind) && first != kTokens &&
               lastUse[static_cast<size_t>(first)] == k) {
      buffer = plan.bufferOf[static_cast<size_t>(first)];
    } else if (!idle.empty()) {
      buffer = idle.back();
      idle.pop_back();
    } else {
      buffer = static_cast<int>(plan.bufferWidth.size());
    }
    if (buffer == static_cast<int>(plan.bufferWidth.size())) plan.bufferWidth.push_back(0);
    plan.bufferOf[k] = buffer;
    int& width = plan.bufferWidth[static_cast<size_t>(buffer)];
    width = std::max(width, L.outWidth);
    if (keepEveryLayer) continue;
    // Inputs read for the last time give their buffers back (once each).
    for (size_t i = 0; i < L.inputs.size(); ++i) {
      const int in = L.inputs[i];
      if (in == kTokens || lastUse[static_cast<size_t>(in)] != k) continue;
      const int b = plan.bufferOf[static_cast<size_t>(in)];
      if (b == buffer || std::find(idle.begin(), idle.end(), b) != idle.end()) continue;
      idle.push_back(b);
    }
  }
  return plan;
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

template <class Scalar>
BasicLayerProgram<Scalar> layerProgramFromPath(const Graph& path) {
  requireValidPath(path);
  const std::vector<NodeId> order = path.topologicalOrder();
  if (order.empty() || path.node(order.front()).op != Op::Input)
    throw Error("layer program: the graph does not start with its Input");
  if (order.back() != path.output())
    throw Error("layer program: the output " + describeNode(path, path.output()) +
                " is not the last node");
  BasicLayerProgram<Scalar> p;
  p.inputWidth = path.node(order.front()).dim;
  for (size_t k = 1; k < order.size(); ++k) {
    const NodeId id = order[k];
    const Node& n = path.node(id);
    for (NodeId x : n.inputs) {
      if (x != order[k - 1])
        throw Error("layer program: " + describeNode(path, id) + " reads " +
                    (x == kNoNode ? std::string("an unconnected input") : describeNode(path, x)) +
                    ", not the node before it: the graph is not a path (compile it first)");
    }
    BasicLayer<Scalar> layer;
    layer.inputs = {k == 1 ? kTokens : static_cast<int>(k) - 2};
    layer.inWidth = path.node(order[k - 1]).dim;
    layer.outWidth = n.dim;
    layer.source = describeNode(path, id);
    switch (n.op) {
      case Op::Input:
        throw Error("layer program: a second Input, " + describeNode(path, id));
      case Op::Linear:
        layer.kind = Layer::Kind::Linear;
        layer.A = toCsr<Scalar>(n.A);
        layer.bias = rounded<Scalar>(n.b, n.dim);
        break;
      case Op::Concat: {
        // A Concat of the one node before it (k copies) is a selection.
        layer.kind = Layer::Kind::Linear;
        std::vector<ExactMatrix::Entry> entries;
        for (int i = 0; i < n.dim; ++i) entries.push_back({i, i % layer.inWidth, Exact(1)});
        layer.A = toCsr<Scalar>(ExactMatrix::fromEntries(n.dim, layer.inWidth, std::move(entries)));
        layer.bias.assign(static_cast<size_t>(n.dim), Scalar(0));
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
        layer.A = toCsr<Scalar>(n.B);
        layer.bias = rounded<Scalar>(n.bias, n.dim);
        layer.init = rounded<Scalar>(n.init, n.dim);
        classifyRecurrence(layer, toCsr<Scalar>(n.A));
        break;
    }
    p.layers.push_back(std::move(layer));
  }
  p.outputWidth = path.node(order.back()).dim;
  p.validate();
  return p;
}

// fp32 for both runners, fp64 for the Vulkan runner's fp64 path.
#define LSRL_INSTANTIATE_LAYERS(Scalar)                                              \
  template struct BasicLayerProgram<Scalar>;                                         \
  template bool BufferPlan::inPlace(const BasicLayerProgram<Scalar>&, size_t) const; \
  template BufferPlan planBuffers(const BasicLayerProgram<Scalar>&, bool);           \
  template BasicLayerProgram<Scalar> layerProgramFromPath<Scalar>(const Graph&);     \
  template void classifyRecurrence(BasicLayer<Scalar>&, BasicCsrMatrix<Scalar>);     \
  template void checkHorizon(const BasicLayerProgram<Scalar>&, int, const std::string&);
LSRL_INSTANTIATE_LAYERS(float)
LSRL_INSTANTIATE_LAYERS(double)
#undef LSRL_INSTANTIATE_LAYERS

}  // namespace lsrl::float_batch
