// The seed models' device backends against their CPU references: every trace array alike.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/seed_models/model_common.h"

namespace lsrl::testing_vulkan {

// Every array of `cpu` is in `device` (and no other), with the same shape and values
// within |device − cpu| ≤ tolerance·(1 + |cpu|) (fp32 against float64: 1e-5);
// where the CPU has inf or NaN the device must have the same. Prints and returns the
// largest relative difference; `worstName` receives its array's name.
inline double expectTracesAgree(const seed_models::Trace& device, const seed_models::Trace& cpu,
                                const std::string& what, double tolerance = 1e-5,
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

}  // namespace lsrl::testing_vulkan
