// The parity rules of the Vulkan kernels: against their fp32 CPU twins
// |gpu − cpu| ≤ 1e-5·(1 + |cpu|) element by element; in fp64 against float64 loops on the
// CPU |gpu − cpu| ≤ 1e-12·(1 + |cpu|).
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

// The fp64 kernels against float64 on the CPU.
inline constexpr double kFp64Parity = 1e-12;

// Expects fp64 parity, stopping at the first element past it (whose error it returns);
// else returns the largest |gpu − cpu| / (1 + |cpu|).
inline double expectFp64Parity(const std::vector<double>& gpu, const std::vector<double>& cpu,
                               const std::string& what) {
  EXPECT_EQ(gpu.size(), cpu.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) {
    const double err = std::fabs(gpu[i] - cpu[i]) / (1 + std::fabs(cpu[i]));
    if (!(err <= kFp64Parity)) {
      ADD_FAILURE() << what << ": element " << i << " gpu " << gpu[i] << " vs float64 " << cpu[i]
                    << " (relative " << err << ")";
      return err;
    }
    worst = std::max(worst, err);
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
