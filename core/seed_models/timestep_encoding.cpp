#include "core/seed_models/timestep_encoding.h"

#include <cmath>

namespace lsrl::seed_models {

const char* peLayoutName(PeLayout p) {
  return p == PeLayout::CosThenSin ? "cos_sin" : "sin_cos_interleaved";
}

std::optional<PeLayout> peLayoutFromName(std::string_view name) {
  if (name == "cos_sin") return PeLayout::CosThenSin;
  if (name == "sin_cos_interleaved") return PeLayout::SinCosInterleaved;
  return std::nullopt;
}

double silu(double u) { return u / (1 + std::exp(-u)); }

Vector sinusoidalCode(double t, int dFreq, PeLayout layout) {
  const size_t half = static_cast<size_t>(dFreq / 2);
  Vector pe(static_cast<size_t>(dFreq), 0.0);  // odd d_f: the last entry stays 0
  for (size_t i = 0; i < half; ++i) {
    const double w =
        std::exp(-std::log(10000.0) * static_cast<double>(i) / static_cast<double>(half));
    if (layout == PeLayout::CosThenSin) {
      pe[i] = std::cos(t * w);
      pe[half + i] = std::sin(t * w);
    } else {
      pe[2 * i] = std::sin(t * w);
      pe[2 * i + 1] = std::cos(t * w);
    }
  }
  return pe;
}

TimestepCode timestepCode(const TimestepWeights& w, int t, int dFreq, PeLayout layout) {
  TimestepCode c;
  c.pe = sinusoidalCode(t, dFreq, layout);
  Vector h = w.w4.apply(c.pe);
  for (double& u : h) u = silu(u);
  c.te = w.w3.apply(h);
  Vector s = c.te;
  for (double& u : s) u = silu(u);
  c.m = w.w5.apply(s);
  const auto d = static_cast<ptrdiff_t>(c.te.size());
  auto chunk = [&](ptrdiff_t k, double offset) {
    Vector v(c.m.begin() + k * d, c.m.begin() + (k + 1) * d);
    for (double& x : v) x += offset;
    return v;
  };
  c.mod = {chunk(0, 0), chunk(1, 0), chunk(2, 1), chunk(3, 1)};
  return c;
}

}  // namespace lsrl::seed_models
