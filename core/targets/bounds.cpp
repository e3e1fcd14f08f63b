#include "core/targets/bounds.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/util/error.h"

namespace lsrl {

namespace {

// [lo, hi] ↦ the box of M z for z in [lo, hi], added into out.
void addInterval(const ExactMatrix& M, const IntervalBox& in, IntervalBox& out) {
  for (const auto& e : M.entries()) {
    const size_t r = static_cast<size_t>(e.row);
    const size_t c = static_cast<size_t>(e.col);
    if (e.value.sign() > 0) {
      out.lo[r] += e.value * in.lo[c];
      out.hi[r] += e.value * in.hi[c];
    } else {
      out.lo[r] += e.value * in.hi[c];
      out.hi[r] += e.value * in.lo[c];
    }
  }
}

IntervalBox mlpBox(const std::vector<NfReluLayer<Exact>>& br, IntervalBox z) {
  for (const auto& l : br) {
    IntervalBox out{l.b, l.b};
    addInterval(l.W, z, out);
    for (Exact& x : out.lo) {
      if (x.sign() < 0) x = Exact();
    }
    for (Exact& x : out.hi) {
      if (x.sign() < 0) x = Exact();
    }
    z = std::move(out);
  }
  return z;
}

// Element-wise product of two boxes (the extremes are among the four corner products).
IntervalBox productBox(const IntervalBox& a, const IntervalBox& b) {
  IntervalBox out;
  for (size_t i = 0; i < a.lo.size(); ++i) {
    const Exact p[4] = {a.lo[i] * b.lo[i], a.lo[i] * b.hi[i], a.hi[i] * b.lo[i], a.hi[i] * b.hi[i]};
    out.lo.push_back(*std::min_element(p, p + 4));
    out.hi.push_back(*std::max_element(p, p + 4));
  }
  return out;
}

// lo_t = A^t s0 + Σ_{j<t} (Φ_j⁺ u_lo − Φ_j⁻ u_hi + φ_j), Φ_j = A^j B, φ_j = A^j b; the
// box of s_t over 1 ≤ t ≤ T.
IntervalBox stateBox(const NfLayer<Exact>& L, const IntervalBox& u, int horizon) {
  const int ds = L.stateDim();
  ExactMatrix Phi = L.B;
  ExactVector phi = L.bias;
  ExactVector At_s0 = L.s0;
  IntervalBox sum{zerosVector(ds), zerosVector(ds)};
  IntervalBox state;
  for (int t = 1; t <= horizon; ++t) {
    addInterval(Phi, u, sum);
    for (size_t i = 0; i < static_cast<size_t>(ds); ++i) {
      sum.lo[i] += phi[i];
      sum.hi[i] += phi[i];
    }
    At_s0 = L.A * At_s0;
    for (size_t i = 0; i < static_cast<size_t>(ds); ++i) {
      const Exact lo = At_s0[i] + sum.lo[i];
      const Exact hi = At_s0[i] + sum.hi[i];
      if (t == 1) {
        state.lo.push_back(lo);
        state.hi.push_back(hi);
      } else {
        if (lo < state.lo[i]) state.lo[i] = lo;
        if (hi > state.hi[i]) state.hi[i] = hi;
      }
    }
    if (t < horizon) {
      Phi = L.A * Phi;
      phi = L.A * phi;
    }
  }
  return state;
}

}  // namespace

std::vector<LayerBounds> layerBounds(const NfModel<Exact>& model, const Exact& inputLo,
                                     const Exact& inputHi, int horizon) {
  model.validate();
  if (horizon < 1) throw Error("interval bounds: the horizon T must be at least 1");
  if (inputHi < inputLo) throw Error("interval bounds: empty input box");
  const size_t dIn = static_cast<size_t>(model.inputDim);
  IntervalBox u{ExactVector(dIn, inputLo), ExactVector(dIn, inputHi)};
  std::vector<LayerBounds> out;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const NfLayer<Exact>& L = model.layers[l];
    if (L.update != StateUpdate::Linear) {
      throw Error("interval bounds: layer " + std::to_string(l) + " already has a ReLU state");
    }
    LayerBounds b;
    b.state = stateBox(L, u, horizon);
    b.f = mlpBox(L.f, b.state);
    b.output = L.gated ? productBox(b.f, mlpBox(L.g, b.state)) : b.f;
    u = b.output;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace lsrl
