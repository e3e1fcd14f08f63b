// The CPU twins of the gated cells on values worked out by hand, against one-layer
// GruModel / LstmModel<double> run by core/targets's runGru / runLstm (input weights and
// readout the identity, so a token is gi and an output is h), and their input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "common/random_csr.h"
#include "core/float_batch/gated_cells.h"
#include "core/targets/gru.h"
#include "core/targets/lstm.h"

namespace lsrl::float_batch {
namespace {

using V = std::vector<float>;

CsrMatrix column(const V& values) {  // gates·1 × 1
  CsrMatrix A;
  A.rows = int(values.size());
  A.cols = 1;
  for (float v : values) {
    A.col.push_back(0);
    A.val.push_back(v);
    A.rowPtr.push_back(uint32_t(A.col.size()));
  }
  return A;
}

TEST(GatedCellsTwin, GruByHand) {
  // H = 1, h0 = 2: gh = Whh·2 + bhh = (1, 0.5, 2.5); r = relu(1 + 1) = 2,
  // z = relu(−0.25 + 0.5) = 0.25, n = relu(1 + 2·2.5) = 6.
  const CsrMatrix W = column({0.5f, 0.25f, 1});
  const V bhh{0, 0, 0.5f}, gi{1, -0.25f, 1}, h0{2};
  EXPECT_EQ(gruRecurrence({1, 1, 1}, W, bhh, gi, h0, GruRule::Pytorch), V{0.75f * 6 + 0.25f * 2});
  EXPECT_EQ(gruRecurrence({1, 1, 1}, W, bhh, gi, h0, GruRule::Paper), V{0.75f * 2 + 0.25f * 6});
}

TEST(GatedCellsTwin, LstmByHand) {
  // H = 1, h0 = 1, c0 = −20. t0: g = relu((0.5, 0, 3, −1) + (1, 0.5, 0, 2)) = (1.5, 0.5, 3, 1),
  // c = 0.5·(−20) + 1.5·3 = −5.5, h = relu(c) = 0. t1 (h = 0, gh = 0): (1, 1, 2, 1),
  // c = −5.5 + 2 = −3.5, h = 0. t2: (1, 0, 4, 1): c = 4, h = 4.
  const CsrMatrix W = column({1, 0.5f, 0, 2});
  const V gi{0.5f, 0, 3, -1, 1, 1, 2, 1, 1, 0, 4, 1};
  EXPECT_EQ(lstmRecurrence({1, 3, 1}, W, V(4, 0.0f), gi, V{1}, V{-20}), (V{0, 0, 4}));
  // Zero states: c = 0 + 0.5·3 = 1.5, h = 1.5·(−1 + 0 → 0) = 0 (o = relu(−1) = 0).
  EXPECT_EQ(lstmRecurrence({1, 1, 1}, W, V(4, 0.0f), V{0.5f, 0, 3, -1}, {}, {}), (V{0}));
}

FloatMatrix toDouble(const CsrMatrix& A) {
  std::vector<FloatMatrix::Entry> entries;
  for (int r = 0; r < A.rows; ++r)
    for (uint32_t i = A.rowPtr[r]; i < A.rowPtr[r + 1]; ++i)
      entries.push_back({r, int(A.col[i]), double(A.val[i])});
  return FloatMatrix::fromEntries(A.rows, A.cols, std::move(entries));
}

FloatMatrix identity(int n) {
  std::vector<FloatMatrix::Entry> entries;
  for (int i = 0; i < n; ++i) entries.push_back({i, i, 1.0});
  return FloatMatrix::fromEntries(n, n, std::move(entries));
}

std::vector<double> doubles(const V& v, size_t first, size_t count) {
  return std::vector<double>(v.begin() + first, v.begin() + first + count);
}

// A random cell's arguments with bounded dynamics.
struct Cell {
  SeriesShape shape;
  CsrMatrix Whh;
  V bhh, gi, h0, c0;
};

Cell randomCell(std::mt19937& rng, SeriesShape shape, int gates) {
  std::uniform_real_distribution<float> small(-0.5f, 0.5f), state(0.0f, 1.0f);
  auto fill = [&](size_t n, auto& dist) {
    V v(n);
    for (float& x : v) x = dist(rng);
    return v;
  };
  const size_t B = shape.batch, T = shape.steps, H = shape.channels, G = size_t(gates) * H;
  Cell c{shape,
         testing_common::randomCsr(rng, int(G), int(H), 4, 0.8f),
         fill(G, small),
         fill(B * T * G, small),
         fill(B * H, state),
         fill(B * H, small)};
  return c;
}

// h of batch item bi from a model's outputs against the twin's, within fp32 rounding.
void expectClose(const std::vector<std::vector<double>>& model, const V& h, size_t bi,
                 const SeriesShape& s, const std::string& what) {
  ASSERT_EQ(model.size(), size_t(s.steps)) << what;
  for (size_t t = 0; t < model.size(); ++t)
    for (size_t j = 0; j < size_t(s.channels); ++j) {
      const double want = model[t][j], got = h[(bi * s.steps + t) * s.channels + j];
      EXPECT_NEAR(got, want, 1e-5 * (1 + std::abs(want)))
          << what << " b " << bi << " t " << t << " j " << j;
    }
}

TEST(GatedCellsTwin, GruMatchesRunGru) {
  std::mt19937 rng(21);
  for (const SeriesShape s : {SeriesShape{1, 1, 1}, SeriesShape{2, 9, 5}, SeriesShape{3, 17, 12}})
    for (const GruRule rule : {GruRule::Pytorch, GruRule::Paper}) {
      const Cell c = randomCell(rng, s, 3);
      const int H = s.channels;
      for (const bool zeroStart : {false, true}) {
        const std::string what = "H=" + std::to_string(H) +
                                 (rule == GruRule::Paper ? " paper" : " pytorch") +
                                 (zeroStart ? " zero h0" : "");
        const V h = gruRecurrence(s, c.Whh, c.bhh, c.gi, zeroStart ? V{} : c.h0, rule);
        for (size_t bi = 0; bi < size_t(s.batch); ++bi) {
          GruModel<double> m;
          m.update = rule == GruRule::Paper ? GruUpdate::Paper : GruUpdate::Pytorch;
          m.inputDim = 3 * H;
          GruLayer<double> L;
          L.weightIh = identity(3 * H);
          L.weightHh = toDouble(c.Whh);
          L.biasIh.assign(3 * H, 0.0);
          L.biasHh = doubles(c.bhh, 0, 3 * H);
          L.h0 = zeroStart ? std::vector<double>(H, 0.0) : doubles(c.h0, bi * H, H);
          m.layers.push_back(L);
          m.readoutW = identity(H);
          m.readoutB.assign(H, 0.0);
          std::vector<std::vector<double>> tokens;
          for (size_t t = 0; t < size_t(s.steps); ++t)
            tokens.push_back(doubles(c.gi, (bi * s.steps + t) * 3 * H, 3 * H));
          expectClose(runGru(m, tokens), h, bi, s, what);
        }
      }
    }
}

TEST(GatedCellsTwin, LstmMatchesRunLstm) {
  std::mt19937 rng(22);
  for (const SeriesShape s : {SeriesShape{1, 1, 1}, SeriesShape{2, 9, 5}, SeriesShape{3, 17, 12}}) {
    const Cell c = randomCell(rng, s, 4);
    const int H = s.channels;
    for (const bool zeroStart : {false, true}) {
      const std::string what = "H=" + std::to_string(H) + (zeroStart ? " zero h0, c0" : "");
      const V h =
          lstmRecurrence(s, c.Whh, c.bhh, c.gi, zeroStart ? V{} : c.h0, zeroStart ? V{} : c.c0);
      for (size_t bi = 0; bi < size_t(s.batch); ++bi) {
        LstmModel<double> m;
        m.inputDim = 4 * H;
        LstmLayer<double> L;
        L.weightIh = identity(4 * H);
        L.weightHh = toDouble(c.Whh);
        L.biasIh.assign(4 * H, 0.0);
        L.biasHh = doubles(c.bhh, 0, 4 * H);
        L.h0 = zeroStart ? std::vector<double>(H, 0.0) : doubles(c.h0, bi * H, H);
        L.c0 = zeroStart ? std::vector<double>(H, 0.0) : doubles(c.c0, bi * H, H);
        m.layers.push_back(L);
        m.readoutW = identity(H);
        m.readoutB.assign(H, 0.0);
        std::vector<std::vector<double>> tokens;
        for (size_t t = 0; t < size_t(s.steps); ++t)
          tokens.push_back(doubles(c.gi, (bi * s.steps + t) * 4 * H, 4 * H));
        expectClose(runLstm(m, tokens), h, bi, s, what);
      }
    }
  }
}

using testing_common::expectError;

TEST(GatedCellsTwin, BadShapesAreErrorsNamingTheKernel) {
  const CsrMatrix W3 = column({1, 1, 1}), W4 = column({1, 1, 1, 1});
  const V b3(3), b4(4);
  const auto pytorch = GruRule::Pytorch;
  expectError(
      [&] {
        gruRecurrence({1, 1, 1}, W4, b3, V(3), {}, pytorch);
      },
      "gruRecurrence", "expected W_hh of 3x1 (3 gates x H), got 4x1");
  expectError(
      [&] {
        gruRecurrence({1, 1, 1}, W3, b4, V(3), {}, pytorch);
      },
      "gruRecurrence", "expected bhh of 3 floats, got 4");
  expectError(
      [&] {
        gruRecurrence({1, 2, 1}, W3, b3, V(3), {}, pytorch);
      },
      "gruRecurrence", "expected gi of 6 floats, got 3");
  expectError(
      [&] {
        gruRecurrence({2, 1, 1}, W3, b3, V(6), V(3), pytorch);
      },
      "gruRecurrence", "expected h0 of 0 (zero state) or 2 floats, got 3");
  expectError([&] { gruRecurrence({1, 0, 1}, W3, b3, V{}, {}, pytorch); }, "gruRecurrence", "T=0");
  expectError(
      [&] {
        lstmRecurrence({1, 1, 1}, W3, b4, V(4), {}, {});
      },
      "lstmRecurrence", "expected W_hh of 4x1");
  expectError(
      [&] {
        lstmRecurrence({2, 1, 1}, W4, b4, V(8), {}, V(1));
      },
      "lstmRecurrence", "expected c0 of 0 (zero state) or 2 floats, got 1");
  CsrMatrix bad = W4;
  bad.col[2] = 1;
  expectError([&] { lstmRecurrence({1, 1, 1}, bad, b4, V(4), {}, {}); }, "lstmRecurrence", "col");
}

}  // namespace
}  // namespace lsrl::float_batch
