#include "core/targets/positivity.h"

#include <string>
#include <utility>

#include "core/targets/bounds.h"
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

ShiftResult shiftPositivity(const NfModel<Exact>& model, const ShiftOptions& options) {
  model.validate();
  if (options.horizon < 1) throw Error("positivity shift: the horizon T must be at least 1");
  if (options.inputHi < options.inputLo) throw Error("positivity shift: empty input box");
  for (size_t l = 0; l < model.layers.size(); ++l) {
    if (model.layers[l].update != StateUpdate::Linear) {
      throw Error("positivity shift: layer " + std::to_string(l) + " already has a ReLU state");
    }
    if (model.layers[l].f.empty()) {
      throw Error("positivity shift: layer " + std::to_string(l) +
                  " has no MLP layer to read the shifted state");
    }
  }
  const std::vector<LayerBounds> bounds =
      layerBounds(model, options.inputLo, options.inputHi, options.horizon);
  ShiftResult result{model, {}};
  for (size_t l = 0; l < result.model.layers.size(); ++l) {
    NfLayer<Exact>& L = result.model.layers[l];
    const size_t ds = static_cast<size_t>(L.stateDim());
    ExactVector c(ds);
    for (size_t i = 0; i < ds; ++i) {
      const Exact& lo = bounds[l].state.lo[i];
      if (lo.sign() < 0) c[i] = powerOfTwoAtLeast(-lo);
    }
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
