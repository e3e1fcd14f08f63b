// Where every shader's workgroup size lives (docs/vulkan.md, "Workgroup sizes"): one table,
// in workgroups.cpp. Shaders declare `layout(local_size_x_id = 0) in;` and never a literal
// size; Device::kernel passes the size as specialization constant 0, and dispatches divide
// by the pipeline's Kernel::workgroup(), so the shader and the group counts cannot disagree.
//
//   const Kernel& k = shaderKernel(dev, "relu", 2, sizeof push);       // the table's 256
//   batch.dispatch(k, {...}, &push, sizeof push, cappedGroups(n, k.workgroup().x));
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/gpu/device.h"

namespace lsrl::gpu {

// A shader's row of the table. Fixed sizes are what the shader always runs with. Sizes
// the host picks per call (from the device's limits and the problem) are the number that
// choice starts from: the target of the chunked scans, the cap of the one-workgroup-per-
// sequence kernels, the minimum of csr_matvec_subgroup.
struct ShaderWorkgroup {
  std::string_view shader;  // the base name: "relu" (its `_f64` twin shares the row)
  WorkgroupSize size;
  bool hostSized = false;
};

// Every row, one per shaders/*.comp.
std::span<const ShaderWorkgroup> shaderWorkgroups();

// The table's size of `shader` ("relu" or "relu_f64"). Throws lsrl::Error for a shader
// the table lacks.
WorkgroupSize shaderWorkgroup(std::string_view shader);

// The pipeline of embedded shader `shader` (shaderCode) at the table's size, or at
// `workgroup` (host-sized shaders, or a test's other size). specialization[i] is
// constant_id i + 1 (device.h).
const Kernel& shaderKernel(Device& dev, std::string_view shader, int bindings, uint32_t pushBytes,
                           const std::vector<uint32_t>& specialization = {});
const Kernel& shaderKernel(Device& dev, std::string_view shader, WorkgroupSize workgroup,
                           int bindings, uint32_t pushBytes,
                           const std::vector<uint32_t>& specialization = {});

// One dimension of the workgroup size a SPIR-V module declares: a literal, or a
// specialization constant (its SpecId and default).
struct SpirvWorkgroupDim {
  bool specialized = false;
  uint32_t specId = 0;
  uint32_t value = 1;  // the literal, or the constant's default
};
// Read from the WorkgroupSize built-in when there is one (it overrides the execution
// mode), else from the LocalSizeId or LocalSize execution mode. Throws lsrl::Error when
// the module is malformed or declares none.
std::array<SpirvWorkgroupDim, 3> spirvWorkgroup(std::span<const uint32_t> spirv);

// The size a pipeline of `spirv` runs with, given Device::kernel's constants: constant 0
// is x, constant i + 1 is specialization[i], others keep their defaults.
WorkgroupSize specializedWorkgroup(std::span<const uint32_t> spirv, uint32_t x,
                                   const std::vector<uint32_t>& specialization);

}  // namespace lsrl::gpu
