#include "core/gpu/scan_kernels.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <random>

#include "core/float_batch/scan.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

constexpr uint32_t kMaxGroups = 65535;  // the guaranteed minimum of maxComputeWorkGroupCount
// Workgroups (batch × channel groups) from which the chained schedule keeps a device busy
// without cutting time into parallel chunks: a CPU driver runs one workgroup per core at a
// time; a GPU wants thousands of invocations in flight on every multiprocessor.
constexpr size_t kChainedGroupsCpu = 16;
constexpr size_t kChainedGroupsGpu = 2048;

// Row lengths and strides of the diagonal scans count packs (diag_scan_packs.glsl).
struct DiagPush {
  uint32_t batch, steps, rowPacks, chunks, aBatchStride, aStepStride;
  uint32_t hasH0, firstChunk, chunkCount;  // the chained schedule's
  uint32_t flagBase;                       // the single pass's, in uints of the scratch
};

// The single pass's scratch: per (b, chunk, pack) a composition (A, B) and the state
// leaving the chunk (three vec4), then a flag per (b, chunk, channel group) and a ticket
// counter per (b, channel group), zeroed before each scan (diag_scan_chunk.glsl, PHASE 3).
struct SinglePassScratch {
  size_t lookBackBytes = 0, flagBytes = 0;
  size_t total() const { return lookBackBytes + flagBytes; }
};
SinglePassScratch singlePassScratch(size_t batch, size_t chunks, size_t rowPacks,
                                    size_t channelGroups, size_t valueBytes) {
  SinglePassScratch s;
  s.lookBackBytes = batch * chunks * rowPacks * 3 * 4 * valueBytes;
  s.flagBytes = (batch * chunks * channelGroups + batch * channelGroups) * sizeof(uint32_t);
  return s;
}
struct CarryPush {
  uint32_t batch, rowPacks, chunks, hasH0;
};
struct SequentialPush {
  uint32_t batch, steps, rowPacks, aBatchStride, aStepStride, hasH0, t0, count;
};

// How a diagonal scan's rows are cut into packs: 4 floats (4 real or 2 complex channels)
// when rows and strides allow, else one channel.
struct Packing {
  bool wide = false;
  uint32_t floatsPerPack = 1;  // 4, or 1 (real) / 2 (complex) channel floats
  uint32_t rowPacks = 0;
  uint32_t aBatchStride = 0, aStepStride = 0;
};

Packing packingOf(const DiagScanShape& shape, const ScanOptions& options) {
  const long long perSlot = shape.complex ? 2 : 1;
  const long long row = shape.series.channels * perSlot;
  const long long aBatch = shape.aStrides.batchStride * perSlot;
  const long long aStep = shape.aStrides.stepStride * perSlot;
  Packing p;
  p.wide = options.packFour && row % 4 == 0 && aBatch % 4 == 0 && aStep % 4 == 0;
  p.floatsPerPack = p.wide ? 4 : uint32_t(perSlot);
  p.rowPacks = uint32_t(row / p.floatsPerPack);
  p.aBatchStride = uint32_t(aBatch / p.floatsPerPack);
  p.aStepStride = uint32_t(aStep / p.floatsPerPack);
  return p;
}
struct WalkPush {  // block scan
  uint32_t batch, steps, channels, hasH0, t0, count;
};
struct RecurrencePush {
  uint32_t batch, steps, channels, hasH0, reluState, t0, count;
};

// Grid-stride kernels: enough workgroups for n items, capped at the guaranteed limit.
uint32_t strideGroups(size_t n, uint32_t size) { return std::min(groupsFor(n, size), kMaxGroups); }

// Records a one-walker-per-item kernel over `items` (b, channel) walkers in dispatches of
// stepsPerDispatch steps (each walker's loop passes over its items, then over the steps);
// `push(t0, count)` gives a dispatch's push constants.
template <class Push, class MakePush>
void recordWalk(Batch& batch, const DeviceInfo& info, const Kernel& k,
                std::array<const Buffer*, 4> buffers, size_t items, uint32_t steps, MakePush push) {
  const uint32_t size = k.workgroup().x;
  const uint32_t groups = strideGroups(items, size);
  const uint64_t passes = groupsFor(items, size_t(groups) * size);
  const uint32_t chunk = stepsPerDispatch(info, passes);
  for (uint32_t t0 = 0; t0 < steps; t0 += chunk) {
    const Push p = push(t0, std::min(chunk, steps - t0));
    batch.dispatch(k, {buffers[0], buffers[1], buffers[2], buffers[3]}, &p, sizeof p, groups);
  }
}

void checkGroups(const char* kernel, const char* what, size_t groups) {
  if (groups > kMaxGroups)
    throw Error(std::string(kernel) + ": expected at most " + std::to_string(kMaxGroups) +
                " workgroups along " + what + ", got " + std::to_string(groups) +
                " (split the batch)");
}

// The shader of a chunked path (the single pass is compiled apart: diag_scan_chunk.glsl).
const char* chunkShader(ScanPath path, bool singlePass = false) {
  if (singlePass)
    return path == ScanPath::Subgroup ? "diag_scan_subgroup_single" : "diag_scan_shared_single";
  return path == ScanPath::Subgroup ? "diag_scan_subgroup" : "diag_scan_shared";
}

// Lanes of one chunk and channels per workgroup of a chunked path.
struct ChunkGeometry {
  uint32_t lanes = 0;
  uint32_t channelsPerGroup = 0;
  uint32_t stepsPerLane = 0;
  uint32_t chunkSteps() const { return lanes * stepsPerLane; }
};

}  // namespace

const char* scanPathName(ScanPath path) {
  switch (path) {
    case ScanPath::Auto:
      return "auto";
    case ScanPath::Subgroup:
      return "subgroup";
    case ScanPath::Shared:
      return "shared";
    case ScanPath::Sequential:
      return "sequential";
  }
  return "?";
}

const char* scanScheduleName(ScanSchedule schedule) {
  switch (schedule) {
    case ScanSchedule::Auto:
      return "auto";
    case ScanSchedule::ReduceThenScan:
      return "reduce-then-scan";
    case ScanSchedule::Chained:
      return "chained";
    case ScanSchedule::SinglePass:
      return "single-pass";
  }
  return "?";
}

ScanKernels::ScanKernels(Device& device, Real real) : dev_(device), real_(real) {
  requireReal(device.info(), real);
}

ScanPath ScanKernels::resolve(const ScanOptions& options) const {
  if (options.path != ScanPath::Auto) return options.path;
  // Shuffles (shuffle_relative) have no flag of their own in DeviceInfo; every device we
  // know with subgroup arithmetic has them (lavapipe, NVIDIA, AMD, Intel).
  return dev_.info().subgroupArithmetic ? ScanPath::Subgroup : ScanPath::Shared;
}

namespace {

ChunkGeometry geometry(const DeviceInfo& info, ScanPath path, const ScanOptions& options) {
  const char* kernel = "diagScan";
  ChunkGeometry g;
  if (options.stepsPerLane < 1 || options.stepsPerLane > 64)
    throw Error(std::string(kernel) + ": expected stepsPerLane in 1..64, got " +
                std::to_string(options.stepsPerLane));
  g.stepsPerLane = options.stepsPerLane;
  if (path == ScanPath::Subgroup) {
    if (!info.subgroupArithmetic)
      throw Error(std::string(kernel) + ": the subgroup path needs subgroup operations, which " +
                  info.name + " lacks");
    // Any subgroup the driver forms is a multiple of the minimum size, so chunks of that
    // many lanes never straddle two subgroups.
    g.lanes = info.minSubgroupSize > 0 ? info.minSubgroupSize : info.subgroupSize;
  } else {
    g.lanes = options.sharedWidth;
    if (!std::has_single_bit(g.lanes) || g.lanes < 2 || g.lanes > 256)
      throw Error(std::string(kernel) +
                  ": expected a shared width that is a power of two in "
                  "2..256, got " +
                  std::to_string(g.lanes));
  }
  const uint32_t maxInvocations = std::max<uint32_t>(info.maxWorkgroupSize, 1);
  if (g.lanes > maxInvocations)
    throw Error(std::string(kernel) + ": expected at most " + std::to_string(maxInvocations) +
                " lanes (the device's workgroup size), got " + std::to_string(g.lanes));
  // The table's size is the target (core/gpu/workgroups.h): both paths share it.
  const uint32_t target = shaderWorkgroup(chunkShader(path)).x;
  g.channelsPerGroup = std::max<uint32_t>(1, std::min(target, maxInvocations) / g.lanes);
  return g;
}

}  // namespace

ScanSchedule ScanKernels::resolveSchedule(const DiagScanShape& shape,
                                          const ScanOptions& options) const {
  if (options.schedule != ScanSchedule::Auto) return options.schedule;
  const ScanPath path = resolve(options);
  if (path == ScanPath::Sequential) return ScanSchedule::ReduceThenScan;  // not chunked
  const ChunkGeometry g = geometry(dev_.info(), path, options);
  const size_t groups = size_t(std::max(shape.series.batch, 0)) *
                        groupsFor(packingOf(shape, options).rowPacks, g.channelsPerGroup);
  const size_t enough = isCpuDriver(dev_.info()) ? kChainedGroupsCpu : kChainedGroupsGpu;
  return groups >= enough ? ScanSchedule::Chained : ScanSchedule::ReduceThenScan;
}

uint32_t ScanKernels::chunkSteps(const ScanOptions& options) const {
  const ScanPath path = resolve(options);
  return path == ScanPath::Sequential ? 0 : geometry(dev_.info(), path, options).chunkSteps();
}

size_t ScanKernels::diagScanScratchBytes(const DiagScanShape& shape,
                                         const ScanOptions& options) const {
  const uint32_t chunk = chunkSteps(options);
  const ScanSchedule schedule = resolveSchedule(shape, options);
  if (chunk == 0 || schedule == ScanSchedule::Chained) return 0;
  const size_t chunks = (size_t(shape.series.steps) + chunk - 1) / chunk;
  if (schedule == ScanSchedule::SinglePass) {
    const ChunkGeometry g = geometry(dev_.info(), resolve(options), options);
    const size_t rowPacks = packingOf(shape, options).rowPacks;
    return singlePassScratch(size_t(shape.series.batch), chunks, rowPacks,
                             groupsFor(rowPacks, g.channelsPerGroup), valueBytes())
        .total();
  }
  // Per pack and chunk: the composition (A, B), two vec4 (dvec4 in fp64).
  return size_t(shape.series.batch) * chunks * packingOf(shape, options).rowPacks * 8 *
         valueBytes();
}

void ScanKernels::recordDiagScan(Batch& batch, const DiagScanBuffers& buffers,
                                 const DiagScanShape& shape, const ScanOptions& options) {
  const char* kernel = shape.complex ? "complexDiagScan" : "diagScan";
  const int floatsPerSlot = shape.complex ? 2 : 1;
  const float_batch::SeriesShape& s = shape.series;
  float_batch::scan_checks::shape(kernel, s, floatsPerSlot);
  const size_t slotBytes = floatsPerSlot * valueBytes();
  const size_t seriesBytes = size_t(s.batch) * s.steps * s.channels * slotBytes;
  checkBuffer(kernel, "a", buffers.a,
              float_batch::scan_checks::transitionSlots(kernel, s, shape.aStrides) * slotBytes);
  checkBuffer(kernel, "b", buffers.b, seriesBytes);
  checkBuffer(kernel, "h", buffers.h, seriesBytes);
  if (buffers.h0) checkBuffer(kernel, "h0", buffers.h0, size_t(s.batch) * s.channels * slotBytes);
  const uint32_t hasH0 = buffers.h0 != nullptr;
  const Buffer* h0 = buffers.h0 ? buffers.h0 : buffers.a;  // never read when hasH0 = 0
  const auto B = uint32_t(s.batch), T = uint32_t(s.steps);
  const Packing packing = packingOf(shape, options);
  const uint32_t P = packing.rowPacks;
  const std::vector<uint32_t> packSpec = {uint32_t(shape.complex), uint32_t(packing.wide)};

  const ScanPath path = resolve(options);
  if (path == ScanPath::Sequential) {
    const Kernel& k =
        realKernel(dev_, "diag_scan_sequential", real_, 4, sizeof(SequentialPush), packSpec);
    recordWalk<SequentialPush>(batch, dev_.info(), k, {buffers.a, buffers.b, h0, buffers.h},
                               size_t(B) * P, T, [&](uint32_t t0, uint32_t count) {
                                 return SequentialPush{
                                     B,     T,  P,    packing.aBatchStride, packing.aStepStride,
                                     hasH0, t0, count};
                               });
    return;
  }

  const ChunkGeometry g = geometry(dev_.info(), path, options);
  const uint32_t chunks = (T + g.chunkSteps() - 1) / g.chunkSteps();
  const ScanSchedule schedule = resolveSchedule(shape, options);
  const bool chained = schedule == ScanSchedule::Chained;
  if (!chained)
    checkBuffer(kernel, "scratch", buffers.scratch, diagScanScratchBytes(shape, options));
  const uint32_t channelGroups = groupsFor(P, g.channelsPerGroup);
  checkGroups(kernel, "channels", channelGroups);
  checkGroups(kernel, "time chunks", chunks);
  checkGroups(kernel, "batch", B);

  auto chunkKernel = [&](uint32_t phase) -> const Kernel& {
    return realKernel(dev_, chunkShader(path, phase == 3), real_, {g.lanes * g.channelsPerGroup}, 5,
                      sizeof(DiagPush),
                      {g.lanes, g.channelsPerGroup, g.stepsPerLane, uint32_t(shape.complex), phase,
                       uint32_t(packing.wide)});
  };
  DiagPush push{B, T, P, chunks, packing.aBatchStride, packing.aStepStride, hasH0, 0, 0, 0};
  if (chained) {
    // One pass in dispatches of a bounded number of chunks (kernel_support.h): per chunk an
    // invocation loops over its steps twice and over the lanes' scan and broadcast.
    const uint64_t iterationsPerChunk =
        2 * uint64_t(g.stepsPerLane) + 2 * uint64_t(std::bit_width(g.lanes)) + 2;
    const uint32_t perDispatch = stepsPerDispatch(dev_.info(), iterationsPerChunk);
    const Buffer* unusedCarry = buffers.scratch ? buffers.scratch : buffers.a;
    for (uint32_t first = 0; first < chunks; first += perDispatch) {
      push.firstChunk = first;
      push.chunkCount = std::min(perDispatch, chunks - first);
      batch.dispatch(chunkKernel(2), {buffers.a, buffers.b, buffers.h, unusedCarry, h0}, &push,
                     sizeof push, channelGroups, 1, B);
    }
    return;
  }
  if (schedule == ScanSchedule::SinglePass) {
    // One dispatch over every chunk; its flags and tickets start at zero.
    const SinglePassScratch scratch = singlePassScratch(B, chunks, P, channelGroups, valueBytes());
    batch.fill(*buffers.scratch, scratch.lookBackBytes, scratch.flagBytes, 0);
    push.flagBase = uint32_t(scratch.lookBackBytes / sizeof(uint32_t));
    batch.dispatch(chunkKernel(3), {buffers.a, buffers.b, buffers.h, buffers.scratch, h0}, &push,
                   sizeof push, channelGroups, chunks, B);
    return;
  }
  // Phase 1: compositions of every chunk but the last (nothing needs the last one's).
  if (chunks > 1)
    batch.dispatch(chunkKernel(0), {buffers.a, buffers.b, buffers.h, buffers.scratch, h0}, &push,
                   sizeof push, channelGroups, chunks - 1, B);
  // Phase 2: the state entering each chunk.
  const Kernel& carry = realKernel(dev_, "diag_scan_carry", real_, 2, sizeof(CarryPush), packSpec);
  const CarryPush carryPush{B, P, chunks, hasH0};
  batch.dispatch(carry, {h0, buffers.scratch}, &carryPush, sizeof carryPush,
                 strideGroups(size_t(B) * P, carry.workgroup().x));
  // Phase 3: every chunk rescanned from its carry, h written once.
  batch.dispatch(chunkKernel(1), {buffers.a, buffers.b, buffers.h, buffers.scratch, h0}, &push,
                 sizeof push, channelGroups, chunks, B);
}

void ScanKernels::recordBlockScan2(Batch& batch, const Buffer& blocks, const Buffer& b,
                                   const Buffer* h0, const Buffer& h,
                                   const float_batch::SeriesShape& shape) {
  const char* kernel = "blockScan2";
  float_batch::scan_checks::shape(kernel, shape, 1);
  if (shape.channels % 2 != 0)
    throw Error(std::string(kernel) +
                ": expected an even channel count, got C=" + std::to_string(shape.channels));
  const size_t seriesBytes = size_t(shape.batch) * shape.steps * shape.channels * valueBytes();
  checkBuffer(kernel, "blocks", &blocks, size_t(shape.channels) * 2 * valueBytes());
  checkBuffer(kernel, "b", &b, seriesBytes);
  checkBuffer(kernel, "h", &h, seriesBytes);
  if (h0) checkBuffer(kernel, "h0", h0, size_t(shape.batch) * shape.channels * valueBytes());
  const Kernel& k = realKernel(dev_, "block_scan2", real_, 4, sizeof(WalkPush));
  const uint32_t blockCount = uint32_t(shape.channels / 2);
  recordWalk<WalkPush>(
      batch, dev_.info(), k, {&blocks, &b, h0 ? h0 : &b, &h}, size_t(shape.batch) * blockCount,
      uint32_t(shape.steps), [&](uint32_t t0, uint32_t count) {
        return WalkPush{
            uint32_t(shape.batch), uint32_t(shape.steps), blockCount, h0 != nullptr, t0, count};
      });
}

void ScanKernels::recordLinearRecurrence(Batch& batch, const CsrBuffers& A, size_t nonzeros,
                                         const Buffer& u, const Buffer* h0, const Buffer& h,
                                         const float_batch::SeriesShape& shape, bool reluState) {
  const char* kernel = "linearRecurrence";
  float_batch::scan_checks::shape(kernel, shape, 1);
  const size_t seriesBytes = size_t(shape.batch) * shape.steps * shape.channels * valueBytes();
  checkBuffer(kernel, "rowPtr", A.rowPtr, (size_t(shape.channels) + 1) * sizeof(uint32_t));
  checkBuffer(kernel, "col", A.col, std::max<size_t>(nonzeros, 1) * sizeof(uint32_t));
  checkBuffer(kernel, "val", A.val, std::max<size_t>(nonzeros, 1) * valueBytes());
  checkBuffer(kernel, "u", &u, seriesBytes);
  checkBuffer(kernel, "h", &h, seriesBytes);
  if (h0) checkBuffer(kernel, "h0", h0, size_t(shape.batch) * shape.channels * valueBytes());
  // The state h_{t−1} of one batch item lives in shared memory.
  const SequenceGroup g =
      sequenceGroup(kernel, "recurrence_csr", dev_.info(), shape.channels, valueBytes());
  // fp64 sums a row (u and its products) by decreasing magnitude when it is short: for t
  // terms up to t(t − 1)/2 insertion steps and 2t more, which the step budget counts.
  const size_t rowNonZeros = A.maxRowNonZeros > 0 ? A.maxRowNonZeros : nonzeros;
  const uint32_t sorted = sortedRowTerms(real_, rowNonZeros);
  std::vector<uint32_t> spec = {g.perInvocation};
  if (real_ == Real::F64) spec.push_back(sorted);
  const Kernel& k =
      realKernel(dev_, "recurrence_csr", real_, {g.local}, 6, sizeof(RecurrencePush), spec);
  const uint32_t rowCost = sorted > 0 ? sorted * (sorted + 3) / 2 : A.maxRowNonZeros;
  const uint32_t chunk = stepsPerDispatch(
      dev_.info(), recurrenceIterationsPerStep(g.perInvocation, 1, rowCost, nonzeros));
  for (uint32_t t0 = 0; t0 < uint32_t(shape.steps); t0 += chunk) {
    const RecurrencePush push{uint32_t(shape.batch),
                              uint32_t(shape.steps),
                              uint32_t(shape.channels),
                              h0 != nullptr,
                              reluState,
                              t0,
                              std::min(chunk, uint32_t(shape.steps) - t0)};
    batch.dispatch(k, {A.rowPtr, A.col, A.val, &u, h0 ? h0 : &u, &h}, &push, sizeof push,
                   std::min<uint32_t>(uint32_t(shape.batch), kMaxGroups));
  }
}

// ------------------------------------------------------------------- host conveniences

template <class Scalar>
void ScanKernels::expectValues(const char* kernel) const {
  if (realOf<Scalar>() != real_)
    throw Error(std::string(kernel) + ": " + realName(realOf<Scalar>()) + " values given to " +
                realName(real_) + " kernels");
}

template <class Scalar>
std::vector<Scalar> ScanKernels::runDiagScan(const DiagScanShape& shape, std::span<const Scalar> a,
                                             std::span<const Scalar> b, std::span<const Scalar> h0,
                                             const ScanOptions& options, const char* kernel) {
  expectValues<Scalar>(kernel);
  const int floatsPerSlot = shape.complex ? 2 : 1;
  float_batch::scan_checks::shape(kernel, shape.series, floatsPerSlot);
  const size_t n =
      size_t(shape.series.batch) * shape.series.steps * shape.series.channels * floatsPerSlot;
  float_batch::scan_checks::length(
      kernel, "a",
      float_batch::scan_checks::transitionSlots(kernel, shape.series, shape.aStrides) *
          floatsPerSlot,
      a.size());
  float_batch::scan_checks::length(kernel, "b", n, b.size());
  float_batch::scan_checks::initialState(kernel, shape.series, floatsPerSlot, h0.size());
  auto aBuf = uploadFloats(dev_, a), bBuf = uploadFloats(dev_, b);
  auto h0Buf = h0.empty() ? nullptr : uploadFloats(dev_, h0);
  auto hBuf = dev_.buffer(n * sizeof(Scalar));
  const size_t scratchBytes = diagScanScratchBytes(shape, options);
  auto scratch = scratchBytes ? dev_.buffer(scratchBytes) : nullptr;
  Batch batch = dev_.batch();
  recordDiagScan(batch, {aBuf.get(), bBuf.get(), h0Buf.get(), hBuf.get(), scratch.get()}, shape,
                 options);
  dev_.run(batch);
  return dev_.download<Scalar>(*hBuf, n);
}

std::vector<float> ScanKernels::diagScan(const float_batch::SeriesShape& shape,
                                         std::span<const float> a,
                                         float_batch::TransitionStrides aStrides,
                                         std::span<const float> b, std::span<const float> h0,
                                         const ScanOptions& options) {
  return runDiagScan({shape, aStrides, false}, a, b, h0, options, "diagScan");
}

std::vector<double> ScanKernels::diagScan(const float_batch::SeriesShape& shape,
                                          std::span<const double> a,
                                          float_batch::TransitionStrides aStrides,
                                          std::span<const double> b, std::span<const double> h0,
                                          const ScanOptions& options) {
  return runDiagScan({shape, aStrides, false}, a, b, h0, options, "diagScan");
}

std::vector<float> ScanKernels::complexDiagScan(const float_batch::SeriesShape& shape,
                                                std::span<const float> a,
                                                float_batch::TransitionStrides aStrides,
                                                std::span<const float> b, std::span<const float> h0,
                                                const ScanOptions& options) {
  return runDiagScan({shape, aStrides, true}, a, b, h0, options, "complexDiagScan");
}

std::vector<double> ScanKernels::complexDiagScan(const float_batch::SeriesShape& shape,
                                                 std::span<const double> a,
                                                 float_batch::TransitionStrides aStrides,
                                                 std::span<const double> b,
                                                 std::span<const double> h0,
                                                 const ScanOptions& options) {
  return runDiagScan({shape, aStrides, true}, a, b, h0, options, "complexDiagScan");
}

template <class Scalar>
std::vector<Scalar> ScanKernels::runBlockScan2(const float_batch::SeriesShape& shape,
                                               std::span<const Scalar> blocks,
                                               std::span<const Scalar> b,
                                               std::span<const Scalar> h0) {
  const char* kernel = "blockScan2";
  expectValues<Scalar>(kernel);
  float_batch::scan_checks::shape(kernel, shape, 1);
  const size_t n = size_t(shape.batch) * shape.steps * shape.channels;
  float_batch::scan_checks::length(kernel, "blocks (C/2 x 2 x 2)", size_t(shape.channels) * 2,
                                   blocks.size());
  float_batch::scan_checks::length(kernel, "b", n, b.size());
  float_batch::scan_checks::initialState(kernel, shape, 1, h0.size());
  auto blockBuf = uploadFloats(dev_, blocks), bBuf = uploadFloats(dev_, b);
  auto h0Buf = h0.empty() ? nullptr : uploadFloats(dev_, h0);
  auto hBuf = dev_.buffer(n * sizeof(Scalar));
  Batch batch = dev_.batch();
  recordBlockScan2(batch, *blockBuf, *bBuf, h0Buf.get(), *hBuf, shape);
  dev_.run(batch);
  return dev_.download<Scalar>(*hBuf, n);
}

std::vector<float> ScanKernels::blockScan2(const float_batch::SeriesShape& shape,
                                           std::span<const float> blocks, std::span<const float> b,
                                           std::span<const float> h0) {
  return runBlockScan2(shape, blocks, b, h0);
}

std::vector<double> ScanKernels::blockScan2(const float_batch::SeriesShape& shape,
                                            std::span<const double> blocks,
                                            std::span<const double> b, std::span<const double> h0) {
  return runBlockScan2(shape, blocks, b, h0);
}

template <class Scalar>
std::vector<Scalar> ScanKernels::runLinearRecurrence(const float_batch::SeriesShape& shape,
                                                     const float_batch::BasicCsrMatrix<Scalar>& A,
                                                     std::span<const Scalar> u,
                                                     std::span<const Scalar> h0, bool reluState) {
  const char* kernel = "linearRecurrence";
  expectValues<Scalar>(kernel);
  float_batch::scan_checks::shape(kernel, shape, 1);
  float_batch::scan_checks::squareCsr(kernel, A, shape.channels);
  const size_t n = size_t(shape.batch) * shape.steps * shape.channels;
  float_batch::scan_checks::length(kernel, "u", n, u.size());
  float_batch::scan_checks::initialState(kernel, shape, 1, h0.size());
  auto rowPtr = uploadIndices(dev_, A.rowPtr), col = uploadIndices(dev_, A.col);
  auto val = uploadFloats(dev_, std::span<const Scalar>(A.val)), uBuf = uploadFloats(dev_, u);
  auto h0Buf = h0.empty() ? nullptr : uploadFloats(dev_, h0);
  auto hBuf = dev_.buffer(n * sizeof(Scalar));
  Batch batch = dev_.batch();
  recordLinearRecurrence(batch,
                         {rowPtr.get(), col.get(), val.get(), float_batch::maxRowNonZeros(A)},
                         A.val.size(), *uBuf, h0Buf.get(), *hBuf, shape, reluState);
  dev_.run(batch);
  return dev_.download<Scalar>(*hBuf, n);
}

std::vector<float> ScanKernels::linearRecurrence(const float_batch::SeriesShape& shape,
                                                 const float_batch::CsrMatrix& A,
                                                 std::span<const float> u,
                                                 std::span<const float> h0, bool reluState) {
  return runLinearRecurrence(shape, A, u, h0, reluState);
}

std::vector<double> ScanKernels::linearRecurrence(const float_batch::SeriesShape& shape,
                                                  const float_batch::CsrMatrix64& A,
                                                  std::span<const double> u,
                                                  std::span<const double> h0, bool reluState) {
  return runLinearRecurrence(shape, A, u, h0, reluState);
}

// ----------------------------------------------------------------------------- timing

double ScanKernels::diagScanBytes(const float_batch::SeriesShape& shape, Real real) {
  return 3.0 * double(shape.batch) * shape.steps * shape.channels * double(realBytes(real));
}

DiagScanShape ScanKernels::timedScanShape(const float_batch::SeriesShape& shape) {
  return {shape, {shape.steps * (long long)shape.channels, shape.channels}, false};
}

double ScanKernels::timeDiagScan(const float_batch::SeriesShape& shape, const ScanOptions& options,
                                 int repeats) {
  const char* kernel = "timeDiagScan";
  float_batch::scan_checks::shape(kernel, shape, 1);
  if (repeats < 1)
    throw Error(std::string(kernel) + ": expected repeats >= 1, got " + std::to_string(repeats));
  if (dev_.info().timestampPeriodNs <= 0)
    throw Error(std::string(kernel) + ": " + dev_.info().name + " has no compute timestamps");
  const size_t n = size_t(shape.batch) * shape.steps * shape.channels;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> gate(0.5f, 1.0f), input(-1.0f, 1.0f);
  std::vector<float> a(n), b(n);
  for (float& v : a) v = gate(rng);
  for (float& v : b) v = input(rng);
  const DiagScanShape scan = timedScanShape(shape);
  // The same values in the kernels' precision.
  auto upload = [&](const std::vector<float>& v) {
    return real_ == Real::F64 ? uploadFloats(dev_, std::vector<double>(v.begin(), v.end()))
                              : uploadFloats(dev_, v);
  };
  auto aBuf = upload(a), bBuf = upload(b);
  auto hBuf = dev_.buffer(n * valueBytes());
  return timeDiagScan({aBuf.get(), bBuf.get(), nullptr, hBuf.get(), nullptr}, scan, options,
                      repeats);
}

double ScanKernels::timeDiagScan(const DiagScanBuffers& buffers, const DiagScanShape& shape,
                                 const ScanOptions& options, int repeats) {
  const size_t scratchBytes = diagScanScratchBytes(shape, options);
  auto scratch = scratchBytes ? dev_.buffer(scratchBytes) : nullptr;
  DiagScanBuffers withScratch = buffers;
  withScratch.scratch = scratch.get();
  Batch batch = dev_.batch(Timing::PerDispatch);
  recordDiagScan(batch, withScratch, shape, options);
  std::vector<double> totals;
  for (int i = 0; i <= repeats; ++i) {
    const std::vector<double> ms = dev_.run(batch);
    if (i > 0) totals.push_back(std::accumulate(ms.begin(), ms.end(), 0.0));  // i = 0 warms up
  }
  std::nth_element(totals.begin(), totals.begin() + totals.size() / 2, totals.end());
  return totals[totals.size() / 2];
}

}  // namespace lsrl::gpu
