// The GRU and LSTM cells on Vulkan against their CPU twins (core/float_batch/gated_cells.h):
// B = 1, T not a multiple of 8, odd H, H past one workgroup's invocations (several units
// per invocation, up to 700), zero and given initial states, both GRU rules; chained after
// the input projection in one submission; bad shapes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "common/random_csr.h"
#include "core/float_batch/gated_cells.h"
#include "core/float_batch/matvec.h"
#include "core/gpu/gated_cell_kernels.h"
#include "core/gpu/matvec_kernels.h"
#include "gpu/float_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::GruRule;
using float_batch::SeriesShape;
using testing_vulkan::expectParity;
using testing_vulkan::randomFloats;
using V = std::vector<float>;

// A cell's random arguments with bounded dynamics (recurrent rows sum to at most 0.8).
struct Cell {
  float_batch::CsrMatrix Whh;
  V bhh, gi, h0, c0;
};

Cell randomCell(std::mt19937& rng, const SeriesShape& s, int gates, int perRow = 4) {
  const size_t B = s.batch, T = s.steps, H = s.channels, G = size_t(gates) * H;
  return {testing_common::randomCsr(rng, int(G), int(H), perRow, 0.8f),
          randomFloats(rng, G, -0.5f, 0.5f), randomFloats(rng, B * T * G, -0.5f, 0.5f),
          randomFloats(rng, B * H, 0.0f, 1.0f), randomFloats(rng, B * H, -0.5f, 0.5f)};
}

std::string cellShapeName(const SeriesShape& s) {
  return "B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
         " H=" + std::to_string(s.channels);
}

const std::vector<SeriesShape> kShapes = {{1, 1, 1},   {1, 13, 5},   {3, 10, 33},
                                          {2, 7, 257}, {1, 11, 700}, {4, 3, 64}};

TEST(VulkanGatedCells, GruMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  GatedCellKernels cells(dev);
  std::mt19937 rng(41);
  for (const SeriesShape& s : kShapes) {
    const Cell c = randomCell(rng, s, 3);
    for (const GruRule rule : {GruRule::Pytorch, GruRule::Paper}) {
      const std::string what =
          "gru " + cellShapeName(s) + (rule == GruRule::Paper ? " paper" : " pytorch");
      expectParity(cells.gru(s, c.Whh, c.bhh, c.gi, c.h0, rule),
                   float_batch::gruRecurrence(s, c.Whh, c.bhh, c.gi, c.h0, rule), what);
      expectParity(cells.gru(s, c.Whh, c.bhh, c.gi, {}, rule),
                   float_batch::gruRecurrence(s, c.Whh, c.bhh, c.gi, {}, rule), what + " zero h0");
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanGatedCells, LstmMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  GatedCellKernels cells(dev);
  std::mt19937 rng(42);
  for (const SeriesShape& s : kShapes) {
    const Cell c = randomCell(rng, s, 4);
    const std::string what = "lstm " + cellShapeName(s);
    expectParity(cells.lstm(s, c.Whh, c.bhh, c.gi, c.h0, c.c0),
                 float_batch::lstmRecurrence(s, c.Whh, c.bhh, c.gi, c.h0, c.c0), what);
    expectParity(cells.lstm(s, c.Whh, c.bhh, c.gi, {}, {}),
                 float_batch::lstmRecurrence(s, c.Whh, c.bhh, c.gi, {}, {}), what + " zero states");
    expectParity(cells.lstm(s, c.Whh, c.bhh, c.gi, {}, c.c0),
                 float_batch::lstmRecurrence(s, c.Whh, c.bhh, c.gi, {}, c.c0), what + " c0 only");
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// Long sequences run as several dispatches, each continuing from the state (and the LSTM's
// cells) the last one left: lavapipe stops a shader loop after 65,535 iterations, which one
// dispatch over all T would pass here (600 steps × 3–4 rows of 64 entries per invocation).
TEST(VulkanGatedCells, LongSequencesRunInChunksOfSteps) {
  LSRL_VULKAN_DEVICE(dev);
  GatedCellKernels cells(dev);
  std::mt19937 rng(43);
  const SeriesShape s{2, 600, 64};
  const Cell gru = randomCell(rng, s, 3, 64);
  expectParity(cells.gru(s, gru.Whh, gru.bhh, gru.gi, gru.h0, GruRule::Pytorch),
               float_batch::gruRecurrence(s, gru.Whh, gru.bhh, gru.gi, gru.h0, GruRule::Pytorch),
               "gru " + cellShapeName(s));
  const Cell lstm = randomCell(rng, s, 4, 64);
  expectParity(cells.lstm(s, lstm.Whh, lstm.bhh, lstm.gi, lstm.h0, lstm.c0),
               float_batch::lstmRecurrence(s, lstm.Whh, lstm.bhh, lstm.gi, lstm.h0, lstm.c0),
               "lstm " + cellShapeName(s));
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// gi = W_ih x + b_ih (a CSR matvec over every token), then the LSTM and a GRU on the same
// projection, recorded into one submission as a model runner chains them.
TEST(VulkanGatedCells, ChainAfterTheInputProjectionInOneSubmission) {
  LSRL_VULKAN_DEVICE(dev);
  GatedCellKernels cells(dev);
  std::mt19937 rng(43);
  const SeriesShape s{3, 9, 20};
  const int D = 6, G = 4 * s.channels;
  const size_t rows = size_t(s.batch) * s.steps;
  const float_batch::CsrMatrix Wih = testing_common::randomCsr(rng, G, D, 3, 1.0f);
  const V bih = randomFloats(rng, G, -0.5f, 0.5f), x = randomFloats(rng, rows * D);
  const Cell c = randomCell(rng, s, 4);
  const float_batch::CsrMatrix gruWhh =
      testing_common::randomCsr(rng, 3 * s.channels, s.channels, 4, 0.8f);
  const DeviceCsr wih = uploadCsr(dev, Wih, bih), whh = uploadCsr(dev, c.Whh, c.bhh);
  // The GRU reads the first 3H of each 4H row: a [b][t][3H] view is not a layout, so it
  // gets its own matvec into a 3H-row projection.
  float_batch::CsrMatrix gruWih = Wih;
  gruWih.rows = 3 * s.channels;
  gruWih.rowPtr.resize(size_t(gruWih.rows) + 1);
  gruWih.col.resize(gruWih.rowPtr.back());
  gruWih.val.resize(gruWih.rowPtr.back());
  const V gruBih(bih.begin(), bih.begin() + 3 * s.channels);
  const V gruBhh(c.bhh.begin(), c.bhh.begin() + 3 * s.channels);
  const DeviceCsr gruIn = uploadCsr(dev, gruWih, gruBih), gruRec = uploadCsr(dev, gruWhh, gruBhh);
  auto xb = dev.buffer(x.size() * sizeof(float));
  dev.upload(*xb, x.data(), x.size() * sizeof(float));
  const size_t H = s.channels;
  auto gi4 = dev.buffer(rows * G * sizeof(float)), gi3 = dev.buffer(rows * 3 * H * sizeof(float));
  auto lstmH = dev.buffer(rows * H * sizeof(float)), gruH = dev.buffer(rows * H * sizeof(float));
  Batch work = dev.batch();
  recordCsrMatvec(dev, work, wih, *xb, *gi4, rows);
  cells.recordLstm(work, {whh.rowPtr.get(), whh.col.get(), whh.val.get()}, whh.nonZeros, *whh.bias,
                   *gi4, nullptr, nullptr, *lstmH, s);
  recordCsrMatvec(dev, work, gruIn, *xb, *gi3, rows);
  cells.recordGru(work, {gruRec.rowPtr.get(), gruRec.col.get(), gruRec.val.get()}, gruRec.nonZeros,
                  *gruRec.bias, *gi3, nullptr, *gruH, s, GruRule::Paper);
  EXPECT_EQ(work.size(), 4u);
  dev.run(work);
  const V lstm = float_batch::lstmRecurrence(s, c.Whh, c.bhh,
                                             float_batch::csrMatvec(Wih, bih, x, rows), {}, {});
  const V gru = float_batch::gruRecurrence(
      s, gruWhh, gruBhh, float_batch::csrMatvec(gruWih, gruBih, x, rows), {}, GruRule::Paper);
  expectParity(dev.download<float>(*lstmH, lstm.size()), lstm, "matvec → lstm");
  expectParity(dev.download<float>(*gruH, gru.size()), gru, "matvec → gru");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

using testing_common::expectError;

TEST(VulkanGatedCells, BadShapesAreErrorsNamingTheKernel) {
  LSRL_VULKAN_DEVICE(dev);
  GatedCellKernels cells(dev);
  std::mt19937 rng(44);
  const SeriesShape s{2, 3, 4};
  const Cell c = randomCell(rng, s, 3);
  expectError([&] { cells.gru(s, c.Whh, c.bhh, V(5), c.h0, GruRule::Pytorch); }, "gruRecurrence",
              "expected gi of 72 floats, got 5");
  expectError([&] { cells.lstm(s, c.Whh, c.bhh, c.gi, {}, {}); }, "lstmRecurrence",
              "expected W_hh of 16x4");
  // record() checks its buffers against the shape.
  const DeviceCsr W = uploadCsr(dev, c.Whh, c.bhh);
  const CsrBuffers wb{W.rowPtr.get(), W.col.get(), W.val.get()};
  auto gi = dev.buffer(c.gi.size() * sizeof(float)), h = dev.buffer(24 * sizeof(float));
  auto small = dev.buffer(4 * sizeof(float));
  Batch work = dev.batch();
  expectError(
      [&] {
        cells.recordGru(work, wb, W.nonZeros, *W.bias, *small, nullptr, *h, s, GruRule::Paper);
      },
      "gruRecurrence", "expected buffer gi of at least 288 bytes, got 16");
  expectError(
      [&] {
        cells.recordGru(work, wb, W.nonZeros, *W.bias, *gi, small.get(), *h, s, GruRule::Paper);
      },
      "gruRecurrence", "buffer h0");
  expectError(
      [&] { cells.recordLstm(work, wb, W.nonZeros, *W.bias, *gi, nullptr, nullptr, *h, s); },
      "lstmRecurrence", "buffer rowPtr");
  EXPECT_EQ(work.size(), 0u);
  // The state must fit in shared memory.
  const int huge = int(dev.info().maxSharedMemory);  // 4× too many floats
  float_batch::CsrMatrix empty;
  empty.rows = 3 * huge;
  empty.cols = huge;
  empty.rowPtr.assign(size_t(empty.rows) + 1, 0);
  expectError(
      [&] {
        cells.gru({1, 1, huge}, empty, V(3 * size_t(huge)), V(3 * size_t(huge)), {},
                  GruRule::Pytorch);
      },
      "gruRecurrence", "shared memory");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
