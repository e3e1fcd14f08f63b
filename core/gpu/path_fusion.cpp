#include "core/gpu/path_fusion.h"

#include <algorithm>
#include <map>

#include "core/gpu/kernel_support.h"
#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

using float_batch::LayerKind;
using float_batch::Recurrence;

namespace {

// shaders/path_fused.comp's descriptor layout.
constexpr uint32_t kDescriptor = 16;
enum Field : uint32_t {
  kKind = 0,
  kOut,
  kWidth,
  kIn0,
  kIn1,
  kRows,
  kBias,
  kSorted,
  kRecurrence,
  kTransition,
  kStateSorted,
  kReluState,
  kInit,
  kCarry,
};
constexpr uint32_t kNone = 0xffffffffu;

uint32_t kindCode(LayerKind kind) {
  switch (kind) {
    case LayerKind::Linear:
      return 0;
    case LayerKind::Relu:
      return 1;
    case LayerKind::Multi:
      return 2;
    case LayerKind::LinState:
      return 3;
    case LayerKind::Add:
      return 4;
    case LayerKind::Mul:
      return 5;
    default:
      return kNone;
  }
}

uint32_t recurrenceCode(Recurrence r) {
  switch (r) {
    case Recurrence::Diagonal:
      return 0;
    case Recurrence::Blocks2:
      return 1;
    case Recurrence::General:
      return 2;
  }
  return 0;
}

// Regions of shared memory, first fit, freed regions reused (a step's layers live for a
// few layers each; LinStates, the tokens and the output live for the whole dispatch).
class SharedAllocator {
 public:
  uint32_t allocate(uint32_t size) {
    size = std::max<uint32_t>(size, 1);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < size) continue;
      const uint32_t at = it->first, left = it->second - size;
      free_.erase(it);
      if (left > 0) free_[at + size] = left;
      return at;
    }
    const uint32_t at = top_;
    top_ += size;
    return at;
  }
  void release(uint32_t at, uint32_t size) {
    size = std::max<uint32_t>(size, 1);
    auto it = free_.emplace(at, size).first;
    // Merge with the following and the preceding free region.
    if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  uint32_t top() const { return top_; }

 private:
  std::map<uint32_t, uint32_t> free_;  // offset → size
  uint32_t top_ = 0;
};

// The fp64 row sums' insertion cost for a row of `terms` terms (as recurrence_csr counts).
uint64_t sortedCost(uint32_t terms) { return uint64_t(terms) * (terms + 3) / 2; }

}  // namespace

template <class Scalar>
std::string fusionObstacle(const float_batch::BasicLayerProgram<Scalar>& program) {
  for (size_t k = 0; k < program.layers.size(); ++k)
    if (kindCode(program.layers[k].kind) == kNone)
      return "layer " + std::to_string(k) + " (" + program.layers[k].source +
             ") is not a compiled path's layer (Linear, ReLU, Multi, LinState, Add, Mul)";
  if (program.layers.empty()) return "the program has no layers";
  return "";
}

uint64_t FusedPathLayout::iterationsPerStep(uint32_t local) const {
  auto passes = [&](uint64_t n) { return (n + local - 1) / local; };
  // lavapipe enters every loop of the shader's layer function on every layer (the kinds'
  // branches run masked), so each costs at least one iteration: measured, the UA job's
  // 21 layers took ~440 iterations a step where the strided passes and rows count 73.
  // Twice the loops (an entry and a trip each) bounds that.
  const uint64_t perLayer = 2 * (fp64 ? kFusedLoopsFp64 : kFusedLoopsFp32);
  uint64_t total = passes(inWidth) + layers * (1 + perLayer) + passes(outWidth);
  for (const LayerCost& c : costs) total += passes(c.items) * c.perItem + passes(c.copyItems);
  return total;
}

template <class Scalar>
FusedPathImage<Scalar> fusedPathImage(const float_batch::BasicLayerProgram<Scalar>& program) {
  if (const std::string why = fusionObstacle(program); !why.empty())
    throw Error("fused path: " + why);
  program.validate();
  constexpr bool fp64 = std::is_same_v<Scalar, double>;
  const size_t L = program.layers.size();
  FusedPathImage<Scalar> image;
  image.fp64 = fp64;
  image.layers = static_cast<uint32_t>(L);
  image.inWidth = static_cast<uint32_t>(program.inputWidth);
  image.outWidth = static_cast<uint32_t>(program.outputWidth);
  image.maxWidth = image.inWidth;
  image.meta.assign(L * kDescriptor, 0);

  // The last layer reading each layer's output (L for the output: it outlives the step).
  std::vector<size_t> lastReader(L);
  for (size_t k = 0; k < L; ++k) lastReader[k] = k;  // unread: free once it ran
  for (size_t k = 0; k < L; ++k)
    for (const int in : program.layers[k].inputs)
      if (in != float_batch::kTokens) lastReader[static_cast<size_t>(in)] = k;
  lastReader[L - 1] = L;

  SharedAllocator shared;
  const uint32_t tokens = shared.allocate(image.inWidth);  // offset 0: the shader loads there
  (void)tokens;
  std::vector<uint32_t> region(L, 0);
  std::vector<std::vector<size_t>> freedAfter(L + 1);
  // LinStates' regions first: they hold h_{t−1} from one step to the next, so no layer may
  // write there in between (a region freed by an earlier layer is rewritten every step).
  // The scratch of general recurrences is written in the middle of a step: a region of its
  // own as well.
  uint32_t scratchWidth = 0;
  for (size_t k = 0; k < L; ++k) {
    const auto& layer = program.layers[k];
    if (layer.kind != LayerKind::LinState) continue;
    region[k] = shared.allocate(static_cast<uint32_t>(layer.outWidth));
    if (layer.recurrence == Recurrence::General)
      scratchWidth = std::max(scratchWidth, static_cast<uint32_t>(layer.outWidth));
  }
  image.scratchOffset = shared.allocate(scratchWidth);

  // Entry values first, at their entry index; row pointers and columns follow the
  // descriptors in meta (columns from colBase, appended once every row pointer is in).
  std::vector<uint32_t> rowPtrs, cols;
  std::vector<Scalar> tail;  // biases, transitions, initial states (offsets fixed up below)
  auto addMatrix = [&](const float_batch::BasicCsrMatrix<Scalar>& m) {
    const uint32_t at = static_cast<uint32_t>(L * kDescriptor + rowPtrs.size());
    const uint32_t base = static_cast<uint32_t>(image.coef.size());
    for (const uint32_t p : m.rowPtr) rowPtrs.push_back(base + p);
    cols.insert(cols.end(), m.col.begin(), m.col.end());
    image.coef.insert(image.coef.end(), m.val.begin(), m.val.end());
    return at;
  };
  auto addTail = [&](const std::vector<Scalar>& values) {
    if (values.empty()) return kNone;
    const uint32_t at = static_cast<uint32_t>(tail.size());
    tail.insert(tail.end(), values.begin(), values.end());
    return at;  // relative to the tail: made absolute once the entries are all in
  };
  // fp64 sums a row by magnitude when it is short (real.h's sortedRowTerms).
  auto sortedTermsOf = [&](const float_batch::BasicCsrMatrix<Scalar>& m) {
    return sortedRowTerms(fp64 ? Real::F64 : Real::F32, float_batch::maxRowNonZeros(m));
  };
  std::vector<std::pair<size_t, Field>> tailFields;  // descriptor fields holding tail offsets

  for (size_t k = 0; k < L; ++k) {
    for (const size_t j : freedAfter[k]) {
      const auto& layer = program.layers[j];
      shared.release(region[j], static_cast<uint32_t>(layer.outWidth));
    }
    const auto& layer = program.layers[k];
    const uint32_t width = static_cast<uint32_t>(layer.outWidth);
    image.maxWidth = std::max(image.maxWidth, width);
    uint32_t* d = image.meta.data() + k * kDescriptor;
    if (layer.kind != LayerKind::LinState) region[k] = shared.allocate(width);
    // LinStates keep their state across steps; other outputs die with their last reader.
    if (layer.kind != LayerKind::LinState && lastReader[k] < L)
      freedAfter[lastReader[k] + 1].push_back(k);
    auto inputRegion = [&](size_t i) {
      const int in = layer.inputs[i];
      return in == float_batch::kTokens ? 0u : region[static_cast<size_t>(in)];
    };
    d[kKind] = kindCode(layer.kind);
    d[kOut] = region[k];
    d[kWidth] = width;
    d[kIn0] = inputRegion(0);
    d[kIn1] = layer.inputs.size() > 1 ? inputRegion(1) : 0;
    d[kBias] = kNone;
    FusedPathLayout::LayerCost cost{width, 1, 0};
    if (layer.kind == LayerKind::Linear || layer.kind == LayerKind::LinState) {
      d[kRows] = addMatrix(layer.A);
      d[kBias] = addTail(layer.bias);
      if (d[kBias] != kNone) tailFields.emplace_back(k, kBias);
      const uint32_t sorted = sortedTermsOf(layer.A);
      d[kSorted] = sorted > 0;
      image.sortedTerms = std::max(image.sortedTerms, sorted);
      cost.perItem = 1 + float_batch::maxRowNonZeros(layer.A) + sortedCost(sorted);
    }
    if (layer.kind == LayerKind::LinState) {
      d[kRecurrence] = recurrenceCode(layer.recurrence);
      d[kInit] = addTail(layer.init.empty() ? std::vector<Scalar>(width, Scalar(0)) : layer.init);
      tailFields.emplace_back(k, kInit);
      d[kCarry] = image.stateValues;
      image.stateValues += width;
      switch (layer.recurrence) {
        case Recurrence::Diagonal:
          d[kTransition] = addTail(layer.diagonal);
          tailFields.emplace_back(k, kTransition);
          break;
        case Recurrence::Blocks2:
          d[kTransition] = addTail(layer.blocks);
          tailFields.emplace_back(k, kTransition);
          d[kStateSorted] = fp64;  // block_scan2 sums every fp64 row by magnitude
          cost.items = width / 2;
          cost.perItem = 2 * cost.perItem + 1;
          break;
        case Recurrence::General: {
          d[kTransition] = addMatrix(layer.state);
          const uint32_t sorted = sortedTermsOf(layer.state);
          d[kStateSorted] = sorted > 0;
          image.sortedTerms = std::max(image.sortedTerms, sorted);
          d[kReluState] = layer.reluState;
          cost.perItem += 1 + float_batch::maxRowNonZeros(layer.state) + sortedCost(sorted);
          cost.copyItems = width;
          break;
        }
      }
    }
    image.costs.push_back(cost);
  }
  image.outputOffset = region[L - 1];
  image.sharedValues = shared.top();

  // Tail offsets become absolute (after the entry values); columns follow the row pointers.
  const uint32_t tailBase = static_cast<uint32_t>(image.coef.size());
  for (const auto& [k, field] : tailFields) image.meta[k * kDescriptor + field] += tailBase;
  image.coef.insert(image.coef.end(), tail.begin(), tail.end());
  if (image.coef.empty()) image.coef.push_back(Scalar(0));
  image.meta.insert(image.meta.end(), rowPtrs.begin(), rowPtrs.end());
  image.colBase = static_cast<uint32_t>(image.meta.size());
  image.meta.insert(image.meta.end(), cols.begin(), cols.end());
  return image;
}

// ------------------------------------------------------------------------------ device

namespace {

struct FusedPush {
  uint32_t firstSequence, steps, t0, count;
  uint32_t layers, inWidth, outWidth, outOffset;
  uint32_t colBase, stateValues, scratchOffset, pad;
};

// One sequence per workgroup: a power of two covering the widest layer, at least a
// subgroup, at most the table's size (core/gpu/workgroups.cpp) and the device's.
uint32_t workgroupFor(const DeviceInfo& info, uint32_t maxWidth) {
  const uint32_t most =
      std::min(shaderWorkgroup("path_fused").x, std::max<uint32_t>(info.maxWorkgroupSize, 1));
  uint32_t local = std::max<uint32_t>(info.subgroupSize, 1);
  while (local < maxWidth && local < most) local *= 2;
  return std::min(local, most);
}

size_t fusedSharedBytes(const FusedPathLayout& layout, Real real) {
  return size_t(layout.sharedValues) * realBytes(real);
}

}  // namespace

bool fusesByDefault(const DeviceInfo& info) { return !isCpuDriver(info); }

template <class Scalar>
std::unique_ptr<FusedPath> FusedPath::make(Device& dev,
                                           const float_batch::BasicLayerProgram<Scalar>& program) {
  if (!fusionObstacle(program).empty()) return nullptr;
  FusedPathImage<Scalar> image = fusedPathImage(program);
  if (fusedSharedBytes(image, realOf<Scalar>()) > dev.info().maxSharedMemory) return nullptr;
  return std::unique_ptr<FusedPath>(new FusedPath(dev, std::move(image)));
}

template <class Scalar>
FusedPath::FusedPath(Device& dev, const float_batch::BasicLayerProgram<Scalar>& program)
    : FusedPath(dev, fusedPathImage(program)) {}

template <class Scalar>
FusedPath::FusedPath(Device& dev, FusedPathImage<Scalar>&& image)
    : dev_(dev), real_(realOf<Scalar>()) {
  requireReal(dev.info(), real_);
  const size_t bytes = fusedSharedBytes(image, real_);
  if (bytes > dev.info().maxSharedMemory)
    throw Error("fused path: one sequence needs " + std::to_string(bytes) +
                " bytes of shared memory, the device has " +
                std::to_string(dev.info().maxSharedMemory) + " (run it layered)");
  meta_ = uploadIndices(dev, image.meta);
  coef_ = uploadFloats(dev, std::span<const Scalar>(image.coef));
  layout_ = static_cast<FusedPathLayout&&>(image);
  local_ = workgroupFor(dev.info(), layout_.maxWidth);
  stepsPerDispatch_ = gpu::stepsPerDispatch(dev.info(), layout_.iterationsPerStep(local_));
}

FusedPath::~FusedPath() = default;

size_t FusedPath::carryBytes(uint32_t sequences) const {
  return std::max<size_t>(size_t(sequences) * layout_.stateValues, 1) * realBytes(real_);
}

size_t FusedPath::dispatchesFor(uint32_t sequences, uint32_t steps) const {
  const size_t stepDispatches = (size_t(steps) + stepsPerDispatch_ - 1) / stepsPerDispatch_;
  return stepDispatches * groupsFor(sequences, kMaxGroupsPerDimension);
}

void FusedPath::record(Batch& batch, const Buffer& tokens, const Buffer& out, const Buffer& carry,
                       uint32_t sequences, uint32_t steps) const {
  const char* kernel = "fused path";
  const size_t rows = size_t(sequences) * steps;
  checkBuffer(kernel, "tokens", &tokens, rows * layout_.inWidth * realBytes(real_));
  checkBuffer(kernel, "out", &out, rows * layout_.outWidth * realBytes(real_));
  checkBuffer(kernel, "carry", &carry, carryBytes(sequences));
  std::vector<uint32_t> spec{layout_.sharedValues};
  if (real_ == Real::F64) spec.push_back(layout_.sortedTerms);
  const Kernel& k = realKernel(dev_, "path_fused", real_, {local_}, 5, sizeof(FusedPush), spec);
  for (uint32_t t0 = 0; t0 < steps; t0 += stepsPerDispatch_) {
    for (uint32_t first = 0; first < sequences; first += kMaxGroupsPerDimension) {
      const FusedPush push{first,
                           steps,
                           t0,
                           std::min(stepsPerDispatch_, steps - t0),
                           layout_.layers,
                           layout_.inWidth,
                           layout_.outWidth,
                           layout_.outputOffset,
                           layout_.colBase,
                           layout_.stateValues,
                           layout_.scratchOffset,
                           0};
      batch.dispatch(k, {meta_.get(), coef_.get(), &tokens, &out, &carry}, &push, sizeof push,
                     std::min(kMaxGroupsPerDimension, sequences - first));
    }
  }
}

template std::string fusionObstacle(const float_batch::BasicLayerProgram<float>&);
template std::string fusionObstacle(const float_batch::BasicLayerProgram<double>&);
template FusedPathImage<float> fusedPathImage(const float_batch::BasicLayerProgram<float>&);
template FusedPathImage<double> fusedPathImage(const float_batch::BasicLayerProgram<double>&);
template std::unique_ptr<FusedPath> FusedPath::make(Device&,
                                                    const float_batch::BasicLayerProgram<float>&);
template std::unique_ptr<FusedPath> FusedPath::make(Device&,
                                                    const float_batch::BasicLayerProgram<double>&);
template FusedPath::FusedPath(Device&, const float_batch::BasicLayerProgram<float>&);
template FusedPath::FusedPath(Device&, const float_batch::BasicLayerProgram<double>&);

}  // namespace lsrl::gpu
