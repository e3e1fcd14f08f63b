#include "core/gpu/conv_lru_kernels.h"

#include <algorithm>
#include <cstdint>

#include "core/float_batch/conv_lru.h"
#include "core/float_batch/scan.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/workgroups.h"

namespace lsrl::gpu {

namespace {

constexpr const char* kConv = "causalConv1d";
constexpr const char* kLru = "rgLruInputs";

struct ConvPush {
  uint32_t batch, steps, channels, K;
};
struct LruPush {
  uint32_t count, channels;
  float lruC;
};

size_t seriesFloats(const float_batch::SeriesShape& s) {
  return size_t(s.batch) * s.steps * s.channels;
}

}  // namespace

void recordCausalConv1d(Device& dev, Batch& batch, const Buffer& taps, int K, const Buffer& bias,
                        const Buffer& x, Buffer& out, const float_batch::SeriesShape& shape) {
  float_batch::conv_lru_checks::conv(kConv, shape, K);
  const size_t n = seriesFloats(shape);
  checkBuffer(kConv, "taps", &taps, size_t(shape.channels) * size_t(K) * sizeof(float));
  checkBuffer(kConv, "bias", &bias, size_t(shape.channels) * sizeof(float));
  checkBuffer(kConv, "x", &x, n * sizeof(float));
  checkBuffer(kConv, "out", &out, n * sizeof(float));
  const ConvPush push{uint32_t(shape.batch), uint32_t(shape.steps), uint32_t(shape.channels),
                      uint32_t(K)};
  const Kernel& k = shaderKernel(dev, "causal_conv1d", 4, sizeof push);
  batch.dispatch(k, {&taps, &bias, &x, &out}, &push, sizeof push, cappedGroups(n, k.workgroup().x));
}

std::vector<float> runCausalConv1d(Device& dev, const float_batch::SeriesShape& shape,
                                   std::span<const float> taps, int K, std::span<const float> bias,
                                   std::span<const float> x, const TileOptions& options) {
  float_batch::conv_lru_checks::convArrays(kConv, shape, K, taps.size(), bias.size(), x.size());
  auto tapBuf = uploadFloats(dev, taps), biasBuf = uploadFloats(dev, bias);
  // Tiles of whole sequences: the window looks back along t.
  const size_t rowFloats = size_t(shape.steps) * shape.channels;
  return runRowTiles(dev, kConv, x, size_t(shape.batch), rowFloats, rowFloats, options,
                     [&](Batch& batch, const Buffer& in, Buffer& out, size_t rows) {
                       recordCausalConv1d(dev, batch, *tapBuf, K, *biasBuf, in, out,
                                          {int(rows), shape.steps, shape.channels});
                     });
}

void recordRgLruInputs(Device& dev, Batch& batch, const Buffer& base, float lruC, const Buffer& r,
                       const Buffer& i, const Buffer& u, Buffer& a, Buffer& bOut,
                       const float_batch::SeriesShape& shape) {
  float_batch::scan_checks::shape(kLru, shape, 1);
  const size_t n = seriesFloats(shape), bytes = n * sizeof(float);
  checkBuffer(kLru, "base", &base, size_t(shape.channels) * sizeof(float));
  checkBuffer(kLru, "r", &r, bytes);
  checkBuffer(kLru, "i", &i, bytes);
  checkBuffer(kLru, "u", &u, bytes);
  checkBuffer(kLru, "a", &a, bytes);
  checkBuffer(kLru, "bOut", &bOut, bytes);
  const LruPush push{uint32_t(n), uint32_t(shape.channels), lruC};
  const Kernel& k = shaderKernel(dev, "rglru_inputs", 6, sizeof push);
  batch.dispatch(k, {&base, &r, &i, &u, &a, &bOut}, &push, sizeof push,
                 cappedGroups(n, k.workgroup().x));
}

void runRgLruInputs(Device& dev, const float_batch::SeriesShape& shape, std::span<const float> base,
                    float lruC, std::span<const float> r, std::span<const float> i,
                    std::span<const float> u, std::span<float> a, std::span<float> bOut,
                    const TileOptions& options) {
  float_batch::conv_lru_checks::lruArrays(kLru, shape, base, r.size(), i.size(), u.size());
  const size_t C = shape.channels, rows = size_t(shape.batch) * shape.steps;
  float_batch::scan_checks::length(kLru, "a", rows * C, a.size());
  float_batch::scan_checks::length(kLru, "bOut", rows * C, bOut.size());
  auto baseBuf = uploadFloats(dev, base);
  // Tiles of whole rows [b][t] of C channels; each tile runs as a series of T = 1.
  const std::vector<std::vector<float>> out =
      runRowTiles(dev, kLru, {{r, C}, {i, C}, {u, C}}, rows, {C, C}, options,
                  [&](Batch& batch, const std::vector<const Buffer*>& in,
                      const std::vector<Buffer*>& o, size_t count) {
                    recordRgLruInputs(dev, batch, *baseBuf, lruC, *in[0], *in[1], *in[2], *o[0],
                                      *o[1], {int(count), 1, shape.channels});
                  });
  std::copy(out[0].begin(), out[0].end(), a.begin());
  std::copy(out[1].begin(), out[1].end(), bOut.begin());
}

}  // namespace lsrl::gpu
