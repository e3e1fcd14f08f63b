// Exact block-matrix helpers for building the GRU, LSTM and Hawk weights from NF layers.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/targets/normal_form.h"
#include "core/util/error.h"

namespace lsrl::build_blocks {

inline ExactMatrix blockDiag(const ExactMatrix& a, const ExactMatrix& b) {
  return ExactMatrix::vstack({ExactMatrix::hstack({a, ExactMatrix(a.rows(), b.cols())}),
                              ExactMatrix::hstack({ExactMatrix(b.rows(), a.cols()), b})});
}

inline ExactVector concat(std::vector<ExactVector> parts) {
  ExactVector out;
  for (const ExactVector& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline ExactMatrix diag(const ExactVector& d) {
  std::vector<ExactMatrix::Entry> e;
  for (size_t i = 0; i < d.size(); ++i) {
    e.push_back({static_cast<int>(i), static_cast<int>(i), d[i]});
  }
  const int n = static_cast<int>(d.size());
  return ExactMatrix::fromEntries(n, n, std::move(e));
}

// The branch padded at its end with identity layers (W = I, b = 0) to `depth` layers:
// exact because every branch output is a ReLU output, ≥ 0 (docs/spec/targets.md §1.4).
inline std::vector<NfReluLayer<Exact>> paddedBranch(std::vector<NfReluLayer<Exact>> br, int depth) {
  while (static_cast<int>(br.size()) < depth) {
    const int w = br.back().W.rows();
    br.push_back({ExactMatrix::identity(w), zerosVector(w)});
  }
  return br;
}

// The GRU and LSTM constructions need ReLU states and nonempty branches; `at` names the
// NF layer in the error.
inline void requireReluBranches(const NfLayer<Exact>& N, const std::string& at) {
  if (N.update != StateUpdate::Relu) throw Error(at + " has a linear state (split it first)");
  if (N.f.empty() || (N.gated && N.g.empty())) throw Error(at + " has an empty MLP branch");
}

// The MLP branches of an NF layer, padded to one depth (g only when gated).
struct PaddedBranches {
  int depth = 0;
  std::vector<NfReluLayer<Exact>> f, g;
};

inline PaddedBranches paddedBranches(const NfLayer<Exact>& N) {
  PaddedBranches p;
  p.depth = static_cast<int>(std::max(N.f.size(), N.g.size()));
  p.f = paddedBranch(N.f, p.depth);
  p.g = N.gated ? paddedBranch(N.g, p.depth) : N.g;
  return p;
}

// MLP layer k of both branches side by side: [f_k; g_k] from [f_{k−1}; g_{k−1}], both
// from the shared state when k = 0; f_k alone when ungated.
inline NfReluLayer<Exact> sideBySide(const PaddedBranches& p, int k, bool gated) {
  const size_t kk = static_cast<size_t>(k);
  if (!gated) return p.f[kk];
  return {k == 0 ? ExactMatrix::vstack({p.f[0].W, p.g[0].W}) : blockDiag(p.f[kk].W, p.g[kk].W),
          concat({p.f[kk].b, p.g[kk].b})};
}

// Gate-stacked weights (`gates` blocks of H rows, as in nn.GRU / nn.LSTM) padded to
// blocks of Hmax rows and to `cols` columns with zeros: the padded units of a stacked
// module (docs/spec/targets.md §3.3).
inline ExactMatrix padGateRows(const ExactMatrix& W, int gates, int H, int Hmax, int cols) {
  std::vector<ExactMatrix::Entry> e;
  for (const auto& x : W.entries()) e.push_back({(x.row / H) * Hmax + x.row % H, x.col, x.value});
  return ExactMatrix::fromEntries(gates * Hmax, cols, std::move(e));
}

inline ExactVector padGateVector(const ExactVector& v, int gates, int H, int Hmax) {
  ExactVector out = zerosVector(gates * Hmax);
  for (size_t i = 0; i < v.size(); ++i) {
    const int r = static_cast<int>(i);
    out[static_cast<size_t>((r / H) * Hmax + r % H)] = v[i];
  }
  return out;
}

}  // namespace lsrl::build_blocks
