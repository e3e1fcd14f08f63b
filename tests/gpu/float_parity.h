// The parity rule of the Vulkan kernels against their fp32 CPU twins:
// |gpu − cpu| ≤ 1e-5·(1 + |cpu|) element by element.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace lsrl::testing_vulkan {

// Expects parity; returns the largest |gpu − cpu| / (1 + |cpu|) for reporting.
inline double expectParity(const std::vector<float>& gpu, const std::vector<float>& cpu,
                           const std::string& what) {
  EXPECT_EQ(gpu.size(), cpu.size()) << what;
  double worst = 0;
  int reported = 0;
  for (size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) {
    const double scale = 1.0 + std::fabs(cpu[i]);
    const double err = std::fabs(static_cast<double>(gpu[i]) - cpu[i]) / scale;
    if (!(err <= 1e-5) && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " gpu " << gpu[i] << " cpu " << cpu[i];
    if (!(err <= worst)) worst = err;
  }
  return worst;
}

// `count` floats uniform in [lo, hi).
inline std::vector<float> randomFloats(std::mt19937& rng, size_t count, float lo = -1.0f,
                                       float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace lsrl::testing_vulkan
