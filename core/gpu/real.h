// The precision of a device kernel's values: fp32, or fp64 where the shader has a `_f64`
// twin (shaders/common.glsl's `real`, core/gpu/CMakeLists.txt's LSRL_F64_SHADERS).
// Kernel wrappers take a Real to pick the shader and the element size; fp64 needs the
// device's shaderFloat64 feature (docs/vulkan.md, "Float64 on the device").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/gpu/device.h"

namespace lsrl::gpu {

enum class Real { F32, F64 };

// The Real of a host element type (float or double).
template <class Scalar>
constexpr Real realOf() {
  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "device values are float or double");
  return std::is_same_v<Scalar, double> ? Real::F64 : Real::F32;
}

constexpr size_t realBytes(Real real) { return real == Real::F64 ? 8 : 4; }
const char* realName(Real real);  // "fp32", "fp64"

// The embedded shader of `base` in `real`: "relu" or "relu_f64".
std::string realShaderName(std::string_view base, Real real);

// Throws lsrl::Error naming the device when `real` is F64 and it lacks shaderFloat64.
void requireReal(const DeviceInfo& info, Real real);

// How many terms of a row the fp64 kernels sum by decreasing magnitude, as the float64
// executor does (docs/compiler.md, "Float64 row sums"; shaders/magnitude_sum.glsl): a row
// of `rowNonZeros` products and one more term (a bias or a drive), when it has at most
// kMaxSortedTerms; 0 (index order) for longer rows and always in fp32, whose kernels
// round as their CPU twins do. Insertion into registers costs ~terms²/2 steps per row.
inline constexpr uint32_t kMaxSortedTerms = 64;
uint32_t sortedRowTerms(Real real, size_t rowNonZeros);

// The pipeline of shader `base` in `real` (the device checked first): shaderKernel under
// realShaderName, so fp32 and fp64 pipelines are cached apart; at the table's workgroup
// size (core/gpu/workgroups.h) or at `workgroup`.
const Kernel& realKernel(Device& dev, std::string_view base, Real real, int bindings,
                         uint32_t pushBytes, const std::vector<uint32_t>& specialization = {});
const Kernel& realKernel(Device& dev, std::string_view base, Real real, WorkgroupSize workgroup,
                         int bindings, uint32_t pushBytes,
                         const std::vector<uint32_t>& specialization = {});

}  // namespace lsrl::gpu
