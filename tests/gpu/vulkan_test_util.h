// The device the Vulkan tests share (opened once, validation layers on), the check that
// validation reported nothing, and the rule for machines without one: the tests skip,
// unless LSRL_REQUIRE_VULKAN=1 (set by scripts/test.sh, so CI on lavapipe can never pass by
// skipping).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "core/gpu/device.h"

namespace lsrl::testing_vulkan {

struct SharedDevice {
  std::unique_ptr<gpu::Device> device;
  std::string why;  // set when there is none
};

inline SharedDevice& shared() {
  static SharedDevice s = [] {
    SharedDevice d;
    try {
      d.device = gpu::Device::open({.index = -1, .validation = true});
    } catch (const gpu::VulkanUnavailable& e) {
      d.why = e.what();
    }
    return d;
  }();
  return s;
}

// No validation layer reported anything on `dev`.
inline void expectNoValidationErrors(gpu::Device& dev) {
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

inline bool vulkanRequired() {
  const char* v = std::getenv("LSRL_REQUIRE_VULKAN");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace lsrl::testing_vulkan

// Declares `gpu::Device& dev` or skips (fails under LSRL_REQUIRE_VULKAN=1).
#define LSRL_VULKAN_DEVICE(dev)                                               \
  auto& dev##_shared = ::lsrl::testing_vulkan::shared();                      \
  if (!dev##_shared.device) {                                                 \
    if (::lsrl::testing_vulkan::vulkanRequired()) FAIL() << dev##_shared.why; \
    GTEST_SKIP() << "no Vulkan device: " << dev##_shared.why;                 \
  }                                                                           \
  ::lsrl::gpu::Device& dev = *dev##_shared.device
