#include "core/gpu/min_rnn_resident.h"

#include <algorithm>
#include <string>

#include "core/gpu/elementwise_kernels.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/min_rnn_cell_kernels.h"
#include "core/gpu/min_rnn_device.h"
#include "core/gpu/norm_kernels.h"
#include "core/gpu/row_tiles.h"
#include "core/seed_models/dense_layers.h"
#include "core/seed_models/model_common.h"
#include "core/util/error.h"

namespace lsrl::gpu {

using seed_models::MinRnnModel;
using seed_models::Sequence;

namespace {

// A weight tensor [rows][cols] (and its bias) as a dense fp32 matrix on the device.
DeviceDense denseOf(Device& dev, const Tensor& weight, const Tensor* bias) {
  float_batch::DenseMatrix A;
  A.rows = static_cast<int>(weight.shape.at(0));
  A.cols = static_cast<int>(weight.shape.at(1));
  A.val.assign(weight.data.begin(), weight.data.end());
  const std::vector<float> b =
      bias ? std::vector<float>(bias->data.begin(), bias->data.end()) : std::vector<float>{};
  return uploadDense(dev, A, b);
}

std::shared_ptr<Buffer> floatsOf(Device& dev, const Tensor& t) {
  const std::vector<float> v(t.data.begin(), t.data.end());
  return uploadFloats(dev, std::span<const float>(v));
}

}  // namespace

struct MinRnnResident::Weights {
  DeviceDense embed, head;
  struct Layer {
    std::shared_ptr<Buffer> normGain, normBias;
    std::vector<DeviceDense> linears;  // the gates', then "h"
    DeviceDense out;
  };
  std::vector<Layer> layers;
};

// One shape's buffers ([row][width] with rows = sequences × steps), kept for the next call.
struct MinRnnResident::Buffers {
  size_t sequences = 0, steps = 0;
  std::shared_ptr<Buffer> tokens, u, linearOut, pre, a, b, h, o, logits, h0, scratch;
  std::shared_ptr<Buffer> x[2];
  std::shared_ptr<Buffer> unused;  // the cell's trace outputs, not written
};

MinRnnResident::MinRnnResident(Device& dev, const MinRnnModel& model, const ScanOptions& options)
    : dev_(dev), model_(model), scan_(minRnnScanOptions(model.settings().mode, options)) {
  const seed_models::MinRnnConfig& c = model.settings();
  weights_ = std::make_unique<Weights>();
  weights_->embed = denseOf(dev, model.weight("embed.weight"), nullptr);
  weights_->head = denseOf(dev, model.weight("head.weight"), &model.weight("head.bias"));
  std::vector<std::string> linears = seed_models::minRnnGateLinears(model.cell());
  linears.push_back("h");
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    Weights::Layer layer;
    if (c.layerNorm) {
      layer.normGain = floatsOf(dev, model.weight(p + "norm.weight"));
      layer.normBias = floatsOf(dev, model.weight(p + "norm.bias"));
    }
    for (const std::string& name : linears)
      layer.linears.push_back(
          denseOf(dev, model.weight(p + name + ".weight"), &model.weight(p + name + ".bias")));
    layer.out = denseOf(dev, model.weight(p + "out.weight"), &model.weight(p + "out.bias"));
    weights_->layers.push_back(std::move(layer));
  }
}

MinRnnResident::~MinRnnResident() = default;

std::vector<Sequence> MinRnnResident::run(const std::vector<Sequence>& batch) {
  if (batch.empty()) return {};
  const std::string what = model_.kind() + " on Vulkan";
  const size_t steps = batch[0].size();
  const size_t dIn = static_cast<size_t>(model_.inputWidth());
  for (size_t s = 0; s < batch.size(); ++s) {
    if (batch[s].size() != steps)
      throw Error(what + ": sequence " + std::to_string(s) + ": " +
                  std::to_string(batch[s].size()) + " tokens, sequence 0 has " +
                  std::to_string(steps) + " (a batch needs one length)");
    try {  // the CPU reference's message
      seed_models::requireWidth(model_.kind(), batch[s], model_.inputWidth());
    } catch (const Error& e) {
      throw Error(what + ": sequence " + std::to_string(s) + ": " + e.what());
    }
  }
  std::vector<Sequence> out(batch.size());
  if (steps == 0) return out;
  // Sequences per pass: the pre-activations (the widest buffer) within one storage buffer,
  // and the scan's grid along the batch.
  const seed_models::MinRnnConfig& c = model_.settings();
  const size_t linears = weights_->layers.empty() ? 1 : weights_->layers[0].linears.size();
  const size_t widest = std::max({linears * size_t(c.dh), size_t(c.dModel), size_t(c.dOut), dIn});
  const size_t perSequence = steps * widest * sizeof(float);
  if (perSequence > dev_.info().maxStorageBufferRange)
    throw Error(what + ": one sequence of " + std::to_string(steps) + " tokens needs " +
                std::to_string(perSequence) + "-byte buffers, over the device's " +
                std::to_string(dev_.info().maxStorageBufferRange));
  const size_t per =
      std::min<size_t>(dev_.info().maxStorageBufferRange / perSequence, kMaxGroupsPerDimension);
  for (size_t first = 0; first < batch.size(); first += per)
    runPass(batch, first, std::min(per, batch.size() - first), out);
  return out;
}

void MinRnnResident::runPass(const std::vector<Sequence>& batch, size_t first, size_t count,
                             std::vector<Sequence>& out) {
  const seed_models::MinRnnConfig& c = model_.settings();
  const size_t steps = batch[first].size(), rows = count * steps;
  const size_t dIn = static_cast<size_t>(model_.inputWidth()), D = size_t(c.dModel),
               H = size_t(c.dh), dOut = size_t(c.dOut);
  const MinRnnCellShape cell{model_.cell(), c.variant, steps, H};
  ScanKernels scans(dev_);
  if (!buffers_ || buffers_->sequences != count || buffers_->steps != steps) {
    buffers_.reset();
    auto b = std::make_unique<Buffers>();
    auto floats = [&](size_t n) { return dev_.buffer(std::max<size_t>(n, 1) * sizeof(float)); };
    b->sequences = count;
    b->steps = steps;
    b->tokens = floats(rows * dIn);
    b->x[0] = floats(rows * D);
    b->x[1] = floats(rows * D);
    b->u = floats(rows * D);
    b->o = floats(rows * D);
    b->linearOut = floats(rows * H);
    b->pre = floats(cell.linears() * rows * H);
    b->a = floats(rows * H);
    b->b = floats(rows * H);
    b->h = floats(rows * H);
    b->logits = floats(rows * dOut);
    b->unused = floats(1);
    // Every sequence starts every layer from the model's h_0.
    const std::vector<double> h0 = model_.initialState();
    std::vector<float> repeated;
    for (size_t s = 0; s < count; ++s) repeated.insert(repeated.end(), h0.begin(), h0.end());
    b->h0 = uploadFloats(dev_, std::span<const float>(repeated));
    const size_t scratch = scans.diagScanScratchBytes(minRnnScanShape(cell, count), scan_);
    if (scratch > 0) b->scratch = dev_.buffer(scratch);
    buffers_ = std::move(b);
  }
  Buffers& b = *buffers_;
  {
    std::vector<float> tokens;
    tokens.reserve(rows * dIn);
    for (size_t s = first; s < first + count; ++s)
      for (const seed_models::Vector& row : batch[s])
        tokens.insert(tokens.end(), row.begin(), row.end());
    dev_.upload(*b.tokens, tokens.data(), tokens.size() * sizeof(float));
  }
  Batch pass = dev_.batch();
  recordDenseMatvec(dev_, pass, weights_->embed, *b.tokens, *b.x[0], rows);
  int cur = 0;
  const size_t cellValues = rows * H;
  for (const Weights::Layer& layer : weights_->layers) {
    Buffer& x = *b.x[cur];
    Buffer& next = *b.x[1 - cur];
    const Buffer* u = &x;
    if (c.layerNorm) {
      recordLayerNorm(dev_, pass, *layer.normGain, *layer.normBias, x, *b.u, rows, D,
                      static_cast<float>(seed_models::kLayerNormEps));
      u = b.u.get();
    }
    // Each Linear into its slot of the cell's pre-activations.
    for (size_t i = 0; i < layer.linears.size(); ++i) {
      recordDenseMatvec(dev_, pass, layer.linears[i], *u, *b.linearOut, rows);
      pass.copy(*b.linearOut, *b.pre, cellValues * sizeof(float), 0,
                i * cellValues * sizeof(float));
    }
    recordMinRnnCell(dev_, pass, scans, cell, count,
                     {b.pre.get(), b.h0.get(), b.a.get(), b.b.get(), b.h.get(), b.unused.get(),
                      b.unused.get(), b.scratch.get()},
                     false, scan_);
    // x + W_out h + b_out (without the skip when residual is off).
    recordDenseMatvec(dev_, pass, layer.out, *b.h, c.residual ? *b.o : next, rows);
    if (c.residual) recordAdd(dev_, pass, *b.o, x, next, rows * D);
    cur = 1 - cur;
  }
  recordDenseMatvec(dev_, pass, weights_->head, *b.x[cur], *b.logits, rows);
  dev_.run(pass);
  const std::vector<float> logits = dev_.download<float>(*b.logits, rows * dOut);
  for (size_t s = 0; s < count; ++s) {
    Sequence& y = out[first + s];
    y.resize(steps);
    for (size_t t = 0; t < steps; ++t) {
      const float* row = logits.data() + (s * steps + t) * dOut;
      y[t].assign(row, row + dOut);
    }
  }
}

}  // namespace lsrl::gpu
