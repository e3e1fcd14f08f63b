#include "core/gpu/real.h"

#include "core/gpu/workgroups.h"
#include "core/util/error.h"

namespace lsrl::gpu {

const char* realName(Real real) { return real == Real::F64 ? "fp64" : "fp32"; }

std::string realShaderName(std::string_view base, Real real) {
  return std::string(base) + (real == Real::F64 ? "_f64" : "");
}

uint32_t sortedRowTerms(Real real, size_t rowNonZeros) {
  if (real != Real::F64 || rowNonZeros + 1 > kMaxSortedTerms) return 0;
  return static_cast<uint32_t>(rowNonZeros + 1);
}

void requireReal(const DeviceInfo& info, Real real) {
  if (real == Real::F64 && !info.shaderFloat64)
    throw Error("device " + info.name +
                " has no shaderFloat64: use --precision fp32 or the float64 CPU backend");
}

const Kernel& realKernel(Device& dev, std::string_view base, Real real, int bindings,
                         uint32_t pushBytes, const std::vector<uint32_t>& specialization) {
  return realKernel(dev, base, real, shaderWorkgroup(base), bindings, pushBytes, specialization);
}

const Kernel& realKernel(Device& dev, std::string_view base, Real real, WorkgroupSize workgroup,
                         int bindings, uint32_t pushBytes,
                         const std::vector<uint32_t>& specialization) {
  requireReal(dev.info(), real);
  return shaderKernel(dev, realShaderName(base, real), workgroup, bindings, pushBytes,
                      specialization);
}

}  // namespace lsrl::gpu
