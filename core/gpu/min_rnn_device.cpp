#include "core/gpu/min_rnn_device.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "core/gpu/embed_and_head.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/min_rnn_cell_kernels.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"
#include "core/util/parallel_for.h"

namespace lsrl::gpu {

namespace {

using seed_models::MinRnnCell;
using seed_models::MinRnnModel;
using seed_models::MinRnnVariant;
using seed_models::Sequence;

using CellShape = MinRnnCellShape;

std::string what(MinRnnCell cell) {
  return std::string(seed_models::minRnnCellKind(cell)) + " on Vulkan";
}

Error numbered(MinRnnCell cell, const char* item, size_t i, const std::string& message) {
  return Error(what(cell) + ": " + item + " " + std::to_string(i) + ": " + message);
}

// Sequences per pass so that the widest buffer (the pre-activations, or the traced gates)
// stays within the device's range and the scan's grid (65,535 workgroups along the batch).
size_t sequencesPerPass(const DeviceInfo& info, const CellShape& s, bool keepGates) {
  const size_t arrays = std::max(s.linears(), keepGates ? s.gateArrays() : 1);
  const size_t bytes = std::max<size_t>(s.perSequence(), 1) * arrays * sizeof(float);
  if (bytes > info.maxStorageBufferRange)
    throw Error(what(s.cell) + ": one sequence of " + std::to_string(s.steps) + " tokens with " +
                std::to_string(s.width) + " units needs " + std::to_string(bytes) +
                " bytes in one buffer, the device's range is " +
                std::to_string(info.maxStorageBufferRange));
  return std::min<size_t>(info.maxStorageBufferRange / bytes, kMaxGroupsPerDimension);
}

// What one pass downloads, fp32 [b][t][unit]: the states, and with keepGates h̃ and the
// gate arrays one after the other.
struct MinRnnPass {
  std::vector<float> hidden, candidate, gates;
};

MinRnnPass runPass(Device& dev, std::span<const MinRnnCellInputs> ins, const CellShape& s,
                   bool keepGates, const ScanOptions& options) {
  const size_t B = ins.size(), n = B * s.perSequence();
  std::vector<float> pre(s.linears() * n), h0(B * s.width, 0.0f);
  for (size_t b = 0; b < B; ++b) {
    for (size_t l = 0; l < s.linears(); ++l)
      std::transform(ins[b].pre[l].begin(), ins[b].pre[l].end(),
                     pre.begin() + static_cast<ptrdiff_t>(l * n + b * s.perSequence()),
                     [](double x) { return static_cast<float>(x); });
    std::transform(ins[b].h0.begin(), ins[b].h0.end(),
                   h0.begin() + static_cast<ptrdiff_t>(b * s.width),
                   [](double x) { return static_cast<float>(x); });
  }
  auto preBuf = uploadFloats(dev, pre), h0Buf = uploadFloats(dev, h0);
  const size_t seriesBytes = n * sizeof(float);
  auto aBuf = dev.buffer(seriesBytes), bBuf = dev.buffer(seriesBytes),
       hBuf = dev.buffer(seriesBytes);
  // Without a trace the shader writes neither: one float keeps the bindings valid.
  auto candidate = dev.buffer(keepGates ? seriesBytes : sizeof(float));
  auto gates = dev.buffer(keepGates ? s.gateArrays() * seriesBytes : sizeof(float));

  ScanKernels scans(dev);
  const size_t scratchBytes = scans.diagScanScratchBytes(minRnnScanShape(s, B), options);
  auto scratch = scratchBytes > 0 ? dev.buffer(scratchBytes) : nullptr;

  Batch batch = dev.batch();
  recordMinRnnCell(dev, batch, scans, s, B,
                   {preBuf.get(), h0Buf.get(), aBuf.get(), bBuf.get(), hBuf.get(), candidate.get(),
                    gates.get(), scratch.get()},
                   keepGates, options);
  dev.run(batch);

  MinRnnPass out;
  out.hidden = dev.download<float>(*hBuf, n);
  if (keepGates) {
    out.candidate = dev.download<float>(*candidate, n);
    out.gates = dev.download<float>(*gates, s.gateArrays() * n);
  }
  return out;
}

// `count` values from `from` starting at `first`, widened.
std::vector<double> slice(const std::vector<float>& from, size_t first, size_t count) {
  return {from.begin() + static_cast<ptrdiff_t>(first),
          from.begin() + static_cast<ptrdiff_t>(first + count)};
}

void checkInput(const MinRnnCellInputs& in, const CellShape& s) {
  const std::string kind = seed_models::minRnnCellKind(s.cell);
  seed_models::requireSize(kind + " Linears' pre-activations (arrays)", s.linears(), in.pre.size());
  for (size_t l = 0; l < in.pre.size(); ++l)
    seed_models::requireSize(
        kind + " pre-activations of Linear " + std::to_string(l) + " (steps x width)",
        s.perSequence(), in.pre[l].size());
  if (!in.h0.empty()) seed_models::requireSize(kind + " h0 (width)", s.width, in.h0.size());
}

// The names of the device's cell arrays in the trace, in the shader's order.
std::vector<std::string> traceGateNames(MinRnnCell cell) {
  if (cell == MinRnnCell::Lstm) return {"f", "i", "f_prime", "i_prime"};
  return {"z"};
}

// Layer `layer`'s trace: the model's arrays (MinRnnModel::addLayerTrace, from the float64
// gates and the device's states), with those the device computed put in their place.
void addLayerTrace(seed_models::Trace& trace, const MinRnnModel& model, int layer,
                   const MinRnnCellInputs& in, const seed_models::MinRnnGates& gates,
                   const MinRnnCellResult& device, const Sequence& x) {
  seed_models::Trace host;
  model.addLayerTrace(host, layer, in.pre, gates, device.hidden, x);
  const std::string prefix = layer == 0 ? "" : "layer" + std::to_string(layer) + ".";
  const std::vector<std::string> gateNames = traceGateNames(model.cell());
  for (const Tensor& t : host.arrays()) {
    const std::string name = t.name.substr(prefix.size());
    const auto gate = std::find(gateNames.begin(), gateNames.end(), name);
    if (gate != gateNames.end())
      trace.add(t.name, t.shape, device.gates[static_cast<size_t>(gate - gateNames.begin())]);
    else if (name == "h_tilde")
      trace.add(t.name, t.shape, device.candidate);
    else
      trace.add(t.name, t.shape, t.data);  // hidden: already the device's
  }
}

// The model's forward pass over sequences of one length, one cell call per layer; with
// `trace` (one sequence), that sequence's arrays.
std::vector<Sequence> forward(Device& dev, const MinRnnModel& model, std::span<const Sequence> seqs,
                              seed_models::Trace* trace, const ScanOptions& options) {
  const MinRnnCell cell = model.cell();
  std::vector<Sequence> xs = embedOneLength(model, seqs, what(cell));
  const seed_models::MinRnnConfig& config = model.settings();
  const ScanOptions scan = minRnnScanOptions(config.mode, options);
  const std::vector<double> h0 = model.initialState();
  for (int l = 0; l < config.layers; ++l) {
    // The host's float64 layers, a sequence per core (they were most of an eval's time).
    std::vector<MinRnnCellInputs> ins(xs.size());
    seed_models::MinRnnGates gates;  // sequence 0's, float64, for its trace
    parallelFor(xs.size(), [&](size_t b) {
      seed_models::MinRnnGates g = model.layerGates(l, model.layerInput(l, xs[b]), &ins[b].pre);
      if (b == 0) gates = std::move(g);
      ins[b].h0 = h0;
    });
    const std::vector<MinRnnCellResult> ys =
        runMinRnnCellOnDevice(dev, cell, config.variant, config.dh, ins, trace != nullptr, scan);
    parallelFor(xs.size(), [&](size_t b) { xs[b] = model.layerOutput(l, xs[b], ys[b].hidden); });
    if (trace) addLayerTrace(*trace, model, l, ins[0], gates, ys[0], xs[0]);
  }
  return headWithTrace(model, xs, trace);
}

}  // namespace

ScanOptions minRnnScanOptions(seed_models::MinRnnMode mode, ScanOptions options) {
  if (options.path == ScanPath::Auto && mode == seed_models::MinRnnMode::Sequential)
    options.path = ScanPath::Sequential;
  return options;
}

std::vector<MinRnnCellResult> runMinRnnCellOnDevice(Device& dev, MinRnnCell cell,
                                                    MinRnnVariant variant, int width,
                                                    const std::vector<MinRnnCellInputs>& inputs,
                                                    bool keepGates, const ScanOptions& options) {
  if (width < 1) throw Error(what(cell) + ": expected a width >= 1, got " + std::to_string(width));
  if (inputs.empty()) return {};
  CellShape s{cell, variant, 0, static_cast<size_t>(width)};
  if (!inputs[0].pre.empty()) {
    if (inputs[0].pre[0].size() % s.width != 0)
      throw numbered(cell, "input", 0,
                     std::to_string(inputs[0].pre[0].size()) +
                         " pre-activations are not rows of width " + std::to_string(width));
    s.steps = inputs[0].pre[0].size() / s.width;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    try {
      checkInput(inputs[i], s);
    } catch (const Error& e) {
      throw numbered(cell, "input", i, e.what());
    }
  }
  std::vector<MinRnnCellResult> out(inputs.size());
  if (s.steps == 0) {
    for (MinRnnCellResult& r : out)
      if (keepGates) r.gates.resize(s.gateArrays());
    return out;
  }
  const size_t per = sequencesPerPass(dev.info(), s, keepGates), count = s.perSequence();
  for (size_t first = 0; first < inputs.size(); first += per) {
    const size_t n = std::min(per, inputs.size() - first);
    const MinRnnPass pass = runPass(dev, {inputs.data() + first, n}, s, keepGates, options);
    for (size_t b = 0; b < n; ++b) {
      MinRnnCellResult& r = out[first + b];
      r.hidden = slice(pass.hidden, b * count, count);
      if (!keepGates) continue;
      r.candidate = slice(pass.candidate, b * count, count);
      for (size_t g = 0; g < s.gateArrays(); ++g)
        r.gates.push_back(slice(pass.gates, g * n * count + b * count, count));
    }
  }
  return out;
}

Sequence runMinRnnOnDevice(Device& dev, const MinRnnModel& model, const Sequence& input,
                           seed_models::Trace* trace, const ScanOptions& options) {
  return forward(dev, model, {&input, 1}, trace, options)[0];
}

std::vector<Sequence> runMinRnnOnDevice(Device& dev, const MinRnnModel& model,
                                        const std::vector<Sequence>& batch,
                                        const ScanOptions& options) {
  if (batch.empty()) return {};
  return forward(dev, model, batch, nullptr, options);
}

double timeMinGruScanMs(Device& dev, int batch, int steps, int channels, ScanPath path) {
  // A minGRU layer's scan is the diagonal scan with time-varying a (full strides) that
  // timeDiagScan times on random a ∈ (0.5, 1), b ∈ [−1, 1].
  return ScanKernels(dev).timeDiagScan({batch, steps, channels}, {.path = path});
}

}  // namespace lsrl::gpu
