#include "core/arch/positivity.h"

#include <string>
#include <utility>

#include "core/util/error.h"

namespace lsrl {

namespace {

ExactVector negatedVector(ExactVector v) {
  for (Exact& x : v) x = -x;
  return v;
}

ExactVector positivePart(const ExactVector& v) {
  ExactVector out;
  out.reserve(v.size());
  for (const Exact& x : v) out.push_back(x.sign() > 0 ? x : Exact());
  return out;
}

}  // namespace

NfModel<Exact> splitPositivity(const NfModel<Exact>& model) {
  model.validate();
  NfModel<Exact> out = model;
  for (size_t l = 0; l < out.layers.size(); ++l) {
    NfLayer<Exact>& L = out.layers[l];
    if (L.update == StateUpdate::Relu) continue;
    if (L.f.empty() || (L.gated && L.g.empty())) {
      throw Error("positivity split: layer " + std::to_string(l) +
                  " has no MLP layer to read the split state");
    }
    const int ds = L.stateDim();
    const ExactMatrix negA = L.A.scaled(Exact(-1));
    L.A = ExactMatrix::vstack({ExactMatrix::hstack({L.A, negA}), ExactMatrix::hstack({negA, L.A})});
    L.B = ExactMatrix::vstack({L.B, L.B.scaled(Exact(-1))});
    ExactVector bias = L.bias;
    ExactVector negBias = negatedVector(L.bias);
    bias.insert(bias.end(), negBias.begin(), negBias.end());
    L.bias = std::move(bias);
    ExactVector s0 = positivePart(L.s0);
    ExactVector s0neg = positivePart(negatedVector(L.s0));
    s0.insert(s0.end(), s0neg.begin(), s0neg.end());
    L.s0 = std::move(s0);
    L.update = StateUpdate::Relu;
    const ExactMatrix read =
        ExactMatrix::hstack({ExactMatrix::identity(ds), ExactMatrix::identity(ds, Exact(-1))});
    L.f.front().W = L.f.front().W * read;
    if (L.gated) L.g.front().W = L.g.front().W * read;
  }
  out.validate();
  return out;
}

}  // namespace lsrl

namespace lsrl {

Exact powerOfTwoAtLeast(const Exact& v) {
  if (v.sign() <= 0) throw Error("powerOfTwoAtLeast: value must be positive");
  Exact p(1);
  const Exact two(2);
  while (p < v) p *= two;
  while (p / two >= v) p /= two;
  return p;
}

namespace {

struct Box {
  ExactVector lo;
  ExactVector hi;
};

// [lo, hi] ↦ the box of M z for z in [lo, hi], added into out.
void addInterval(const ExactMatrix& M, const Box& in, Box& out) {
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

Box mlpBox(const std::vector<NfReluLayer<Exact>>& br, Box z) {
  for (const auto& l : br) {
    Box out{l.b, l.b};
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

}  // namespace

ShiftResult shiftPositivity(const NfModel<Exact>& model, const ShiftOptions& options) {
  model.validate();
  if (options.horizon < 1) throw Error("positivity shift: the horizon T must be at least 1");
  if (options.inputHi < options.inputLo) throw Error("positivity shift: empty input box");
  ShiftResult result{model, {}};
  const size_t dIn = static_cast<size_t>(model.inputDim);
  Box u{ExactVector(dIn, options.inputLo), ExactVector(dIn, options.inputHi)};
  for (size_t l = 0; l < result.model.layers.size(); ++l) {
    NfLayer<Exact>& L = result.model.layers[l];
    if (L.update != StateUpdate::Linear) {
      throw Error("positivity shift: layer " + std::to_string(l) + " already has a ReLU state");
    }
    if (L.f.empty()) {
      throw Error("positivity shift: layer " + std::to_string(l) +
                  " has no MLP layer to read the shifted state");
    }
    const size_t ds = static_cast<size_t>(L.stateDim());
    // Unrolled response: lo_t = A^t s0 + Σ_{j<t} (Φ_j⁺ u_lo − Φ_j⁻ u_hi + φ_j).
    ExactMatrix Phi = L.B;     // A^j B
    ExactVector phi = L.bias;  // A^j b
    ExactVector At_s0 = L.s0;  // A^t s0
    Box sum{zerosVector(static_cast<int>(ds)), zerosVector(static_cast<int>(ds))};
    Box state;
    for (int t = 1; t <= options.horizon; ++t) {
      addInterval(Phi, u, sum);
      for (size_t i = 0; i < ds; ++i) {
        sum.lo[i] += phi[i];
        sum.hi[i] += phi[i];
      }
      At_s0 = L.A * At_s0;
      for (size_t i = 0; i < ds; ++i) {
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
      if (t < options.horizon) {
        Phi = L.A * Phi;
        phi = L.A * phi;
      }
    }
    ExactVector c(ds);
    for (size_t i = 0; i < ds; ++i) {
      if (state.lo[i].sign() < 0) c[i] = powerOfTwoAtLeast(-state.lo[i]);
    }
    // The next layer's input box, from the unshifted layer.
    Box y = mlpBox(L.f, state);
    if (L.gated) {
      const Box g = mlpBox(L.g, state);
      for (size_t i = 0; i < y.lo.size(); ++i) {
        y.lo[i] *= g.lo[i];
        y.hi[i] *= g.hi[i];
      }
    }
    u = std::move(y);
    // Fold the shift in.
    const ExactVector Ac = L.A * c;
    for (size_t i = 0; i < ds; ++i) {
      L.bias[i] += c[i] - Ac[i];
      L.s0[i] += c[i];
    }
    L.update = StateUpdate::Relu;
    auto readShifted = [&](std::vector<NfReluLayer<Exact>>& br) {
      if (br.empty()) return;
      const ExactVector Wc = br.front().W * c;
      for (size_t i = 0; i < Wc.size(); ++i) br.front().b[i] -= Wc[i];
    };
    readShifted(L.f);
    if (L.gated) readShifted(L.g);
    result.c.push_back(std::move(c));
  }
  result.model.validate();
  return result;
}

}  // namespace lsrl
