// The seed models' device backends against their CPU references: the fp32 parity rule,
// every trace array alike, outputs element by element, and random input rows.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::testing_vulkan {

// fp32 on the device against float64 on the CPU (the Vulkan issue's rule):
// |device − cpu| ≤ kParity·(1 + |cpu|) element by element.
inline constexpr double kParity = 1e-5;

// Every array of `cpu` is in `device` (and no other), with the same shape and values
// within |device − cpu| ≤ tolerance·(1 + |cpu|) (fp32 against float64: kParity);
// where the CPU has inf or NaN the device must have the same. Prints and returns the
// largest relative difference; `worstName` receives its array's name.
inline double expectTracesAgree(const seed_models::Trace& device, const seed_models::Trace& cpu,
                                const std::string& what, double tolerance = kParity,
                                std::string* worstName = nullptr) {
  EXPECT_EQ(device.arrays().size(), cpu.arrays().size()) << what;
  double worst = 0;
  std::string worstAt;
  for (const Tensor& want : cpu.arrays()) {
    if (!device.has(want.name)) {
      ADD_FAILURE() << what << ": no array " << want.name;
      continue;
    }
    const Tensor& got = device.get(want.name);
    EXPECT_EQ(got.shape, want.shape) << what << ": " << want.name;
    if (got.data.size() != want.data.size()) continue;
    int reported = 0;
    for (size_t i = 0; i < want.data.size(); ++i) {
      const double g = got.data[i], c = want.data[i];
      if (!std::isfinite(c)) {
        EXPECT_TRUE(g == c || (std::isnan(g) && std::isnan(c)))
            << what << ": " << want.name << "[" << i << "] = " << g << ", cpu " << c;
        continue;
      }
      const double err = std::fabs(g - c) / (1 + std::fabs(c));
      if (!(err <= tolerance) && reported++ < 3)
        ADD_FAILURE() << what << ": " << want.name << "[" << i << "] = " << g << ", cpu " << c;
      if (!(err <= worst)) {
        worst = err;
        worstAt = want.name;
      }
    }
  }
  std::printf("%s: max relative difference %.3g (%s)\n", what.c_str(), worst, worstAt.c_str());
  if (worstName != nullptr) *worstName = worstAt;
  return worst;
}

// The largest |got − want| / (1 + |want|) over real or complex values, failing each element
// past `tol`.
template <class T>
double expectClose(const std::vector<T>& got, const std::vector<T>& want, const std::string& what,
                   double tol = kParity) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const double err = std::abs(got[i] - want[i]) / (1 + std::abs(want[i]));
    EXPECT_LE(err, tol) << what << " entry " << i << ": " << got[i] << " vs " << want[i];
    worst = std::max(worst, err);
  }
  return worst;
}

// `steps` rows of `width` N(0, 1) reals (not one-hot: every input column takes part).
inline seed_models::Sequence randomRows(std::mt19937& rng, size_t steps, int width) {
  std::normal_distribution<double> normal;
  seed_models::Sequence rows(steps, seed_models::Vector(static_cast<size_t>(width)));
  for (auto& row : rows)
    for (double& v : row) v = normal(rng);
  return rows;
}

// `steps` rows of `width` N(0, scale²) reals from seed_models::Rng(seed), the same on every
// platform.
inline seed_models::Sequence seededRandomRows(int width, size_t steps, uint64_t seed,
                                              double scale = 1) {
  seed_models::Rng rng(seed);
  seed_models::Sequence rows(steps, seed_models::Vector(static_cast<size_t>(width)));
  for (seed_models::Vector& r : rows)
    for (double& x : r) x = scale * rng.normal();
  return rows;
}

}  // namespace lsrl::testing_vulkan
