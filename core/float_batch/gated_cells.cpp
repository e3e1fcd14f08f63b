#include "core/float_batch/gated_cells.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/float_batch/matvec.h"
#include "core/float_batch/scan.h"
#include "core/util/error.h"

namespace lsrl::float_batch {

namespace gated_cell_checks {

void shape(std::string_view kernel, const SeriesShape& s, int gates) {
  scan_checks::shape(kernel, s, gates);
}

void recurrentMatrix(std::string_view kernel, const CsrMatrix& Whh, int gates, int hidden) {
  const long long rows = static_cast<long long>(gates) * hidden;
  if (Whh.rows != rows || Whh.cols != hidden)
    throw Error(std::string(kernel) + ": expected W_hh of " + std::to_string(rows) + "x" +
                std::to_string(hidden) + " (" + std::to_string(gates) + " gates x H), got " +
                std::to_string(Whh.rows) + "x" + std::to_string(Whh.cols));
  matvec_checks::csr(kernel, Whh);
}

void initialState(std::string_view kernel, std::string_view what, const SeriesShape& s,
                  size_t got) {
  const size_t expected = size_t(s.batch) * size_t(s.channels);
  if (got != 0 && got != expected)
    throw Error(std::string(kernel) + ": expected " + std::string(what) + " of 0 (zero state) or " +
                std::to_string(expected) + " floats, got " + std::to_string(got));
}

void cell(std::string_view kernel, const SeriesShape& s, int gates, const CsrMatrix& Whh,
          size_t bhhFloats, size_t giFloats, size_t h0Floats, size_t c0Floats) {
  shape(kernel, s, gates);
  recurrentMatrix(kernel, Whh, gates, s.channels);
  const size_t gateRow = size_t(gates) * size_t(s.channels);
  scan_checks::length(kernel, "bhh", gateRow, bhhFloats);
  scan_checks::length(kernel, "gi", size_t(s.batch) * size_t(s.steps) * gateRow, giFloats);
  initialState(kernel, "h0", s, h0Floats);
  initialState(kernel, "c0", s, c0Floats);
}

}  // namespace gated_cell_checks

namespace {

// Walks every sequence in order: computes gh = Whh·h_{t−1} + bhh (bias first, then the
// products in CSR order, as sparse_ops::affine does) and lets
// update(bi, t, gi_t, gh, h_{t−1}, h_t) write the row h_t.
template <class Update>
std::vector<float> walkCells(const SeriesShape& shape, int gates, const CsrMatrix& Whh,
                             std::span<const float> bhh, std::span<const float> gi,
                             std::span<const float> h0, Update update) {
  const size_t B = shape.batch, T = shape.steps, H = shape.channels, G = size_t(gates) * H;
  std::vector<float> h(B * T * H), gh(G), zeros(H, 0.0f);
  for (size_t bi = 0; bi < B; ++bi) {
    const float* prev = h0.empty() ? zeros.data() : h0.data() + bi * H;
    for (size_t t = 0; t < T; ++t) {
      for (size_t r = 0; r < G; ++r) {
        float sum = bhh[r];
        for (uint32_t i = Whh.rowPtr[r]; i < Whh.rowPtr[r + 1]; ++i)
          sum += Whh.val[i] * prev[Whh.col[i]];
        gh[r] = sum;
      }
      float* ht = h.data() + (bi * T + t) * H;
      update(bi, t, gi.data() + (bi * T + t) * G, gh.data(), prev, ht);
      prev = ht;
    }
  }
  return h;
}

float relu(float v) { return std::max(v, 0.0f); }

}  // namespace

std::vector<float> gruRecurrence(const SeriesShape& shape, const CsrMatrix& Whh,
                                 std::span<const float> bhh, std::span<const float> gi,
                                 std::span<const float> h0, GruRule rule) {
  gated_cell_checks::cell("gruRecurrence", shape, 3, Whh, bhh.size(), gi.size(), h0.size(), 0);
  const size_t H = shape.channels;
  return walkCells(
      shape, 3, Whh, bhh, gi, h0,
      [&](size_t, size_t, const float* g, const float* gh, const float* prev, float* ht) {
        for (size_t j = 0; j < H; ++j) {
          const float r = relu(g[j] + gh[j]);
          const float z = relu(g[H + j] + gh[H + j]);
          const float n = relu(g[2 * H + j] + r * gh[2 * H + j]);
          ht[j] = rule == GruRule::Pytorch ? (1.0f - z) * n + z * prev[j]
                                           : (1.0f - z) * prev[j] + z * n;
        }
      });
}

std::vector<float> lstmRecurrence(const SeriesShape& shape, const CsrMatrix& Whh,
                                  std::span<const float> bhh, std::span<const float> gi,
                                  std::span<const float> h0, std::span<const float> c0) {
  gated_cell_checks::cell("lstmRecurrence", shape, 4, Whh, bhh.size(), gi.size(), h0.size(),
                          c0.size());
  const size_t H = shape.channels;
  std::vector<float> c(H);
  return walkCells(
      shape, 4, Whh, bhh, gi, h0,
      [&](size_t bi, size_t t, const float* g, const float* gh, const float*, float* ht) {
        if (t == 0) {  // a new sequence: its own cell state
          if (c0.empty())
            std::fill(c.begin(), c.end(), 0.0f);
          else
            std::copy_n(c0.begin() + bi * H, H, c.begin());
        }
        for (size_t j = 0; j < H; ++j) {
          const float i = relu(g[j] + gh[j]), f = relu(g[H + j] + gh[H + j]);
          const float gg = relu(g[2 * H + j] + gh[2 * H + j]);
          const float o = relu(g[3 * H + j] + gh[3 * H + j]);
          c[j] = f * c[j] + i * gg;
          ht[j] = o * relu(c[j]);
        }
      });
}

}  // namespace lsrl::float_batch
