#include "core/gpu/workgroups.h"

#include <map>
#include <string>

#include "core/gpu/shaders.h"
#include "core/util/error.h"

namespace lsrl::gpu {

namespace {

constexpr bool kHost = true;

// The one place a shader's workgroup size is written (docs/vulkan.md, "Workgroup sizes").
// Sizes are those the shaders hard-coded before they took constant 0; tests/gpu's
// workgroup_test.cpp checks every shaders/*.comp has a row and takes its size from
// constant 0.
constexpr ShaderWorkgroup kTable[] = {
    // Grid-stride element-wise kernels: one invocation per item.
    {"binary", {256}},
    {"causal_conv1d", {256}},
    {"copy", {256}},
    {"gateloop_leaves", {256}},
    {"gateloop_readout", {256}},
    {"looped_activation", {256}},
    {"looped_residual", {256}},
    {"min_rnn_gates", {256}},
    {"multi", {256}},
    {"relu", {256}},
    {"rglru_inputs", {256}},
    // One invocation per output or per walker (fewer, longer-lived invocations).
    {"block_scan2", {64}},
    {"csr_matvec", {64}},
    {"diag_scan_carry", {64}},
    {"diag_scan_sequential", {64}},
    // One workgroup per row, reducing in shared memory: a power of two.
    {"looped_attention", {64}},
    {"looped_norm", {64}},
    {"layer_norm", {64}},
    // TILE × TILE outputs per workgroup (TILE is constant 0, so x = y).
    {"dense_matvec", {16, 16}},
    // Sized by the host per call, from these: at least this many invocations and one
    // whole subgroup (matvec_kernels.cpp).
    {"csr_matvec_subgroup", {64}, kHost},
    // The invocations a chunked-scan workgroup aims at: lanes × packs (scan_kernels.cpp).
    {"diag_scan_shared", {128}, kHost},
    {"diag_scan_subgroup", {128}, kHost},
    {"diag_scan_shared_single", {128}, kHost},
    {"diag_scan_subgroup_single", {128}, kHost},
    // One workgroup per sequence, its state in shared memory: at most this many, capped
    // by the device (kernel_support.h's sequenceGroup, lattice_device.cpp).
    {"gru_recurrence", {256}, kHost},
    {"lstm_recurrence", {256}, kHost},
    {"recurrence_csr", {256}, kHost},
    {"lattice_step", {256}, kHost},
    // One workgroup per sequence through a whole compiled path: a power of two covering
    // the widest layer, at least a subgroup, at most this (path_fusion.cpp).
    {"path_fused", {64}, kHost},
};

constexpr std::string_view kF64Suffix = "_f64";

// The SPIR-V opcodes, decorations, built-in and execution modes read here (the SPIR-V
// specification's enumerants).
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpExecutionMode = 16, kOpConstant = 43, kOpConstantComposite = 44,
                   kOpSpecConstant = 50, kOpSpecConstantComposite = 51, kOpDecorate = 71,
                   kOpExecutionModeId = 331;
constexpr uint32_t kDecorationSpecId = 1, kDecorationBuiltIn = 11, kBuiltInWorkgroupSize = 25;
constexpr uint32_t kModeLocalSize = 17, kModeLocalSizeId = 38;

}  // namespace

std::span<const ShaderWorkgroup> shaderWorkgroups() { return kTable; }

WorkgroupSize shaderWorkgroup(std::string_view shader) {
  std::string_view base = shader;
  if (base.ends_with(kF64Suffix)) base.remove_suffix(kF64Suffix.size());
  for (const ShaderWorkgroup& row : kTable)
    if (row.shader == base) return row.size;
  throw Error("no workgroup size for shader " + std::string(shader) +
              " (core/gpu/workgroups.cpp's table)");
}

const Kernel& shaderKernel(Device& dev, std::string_view shader, int bindings, uint32_t pushBytes,
                           const std::vector<uint32_t>& specialization) {
  return shaderKernel(dev, shader, shaderWorkgroup(shader), bindings, pushBytes, specialization);
}

const Kernel& shaderKernel(Device& dev, std::string_view shader, WorkgroupSize workgroup,
                           int bindings, uint32_t pushBytes,
                           const std::vector<uint32_t>& specialization) {
  const std::string name(shader);
  return dev.kernel(name, shaderCode(name), bindings, pushBytes, workgroup, specialization);
}

std::array<SpirvWorkgroupDim, 3> spirvWorkgroup(std::span<const uint32_t> spirv) {
  if (spirv.size() < 5 || spirv[0] != kMagic) throw Error("not a SPIR-V module");
  struct Constant {
    bool spec = false;
    uint32_t value = 0;
  };
  std::map<uint32_t, Constant> constants;                // scalar constants by id
  std::map<uint32_t, std::vector<uint32_t>> composites;  // composite constants by id
  std::map<uint32_t, uint32_t> specIds;                  // SpecId decorations by id
  uint32_t builtInId = 0;                                // the WorkgroupSize built-in
  std::array<uint32_t, 3> localSize{}, localSizeIds{};
  bool hasLocalSize = false, hasLocalSizeId = false;
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, op = spirv[at] & 0xffff;
    if (words == 0 || at + words > spirv.size()) throw Error("malformed SPIR-V module");
    const uint32_t* w = &spirv[at];
    if (op == kOpDecorate && words >= 4) {
      if (w[2] == kDecorationSpecId) specIds[w[1]] = w[3];
      if (w[2] == kDecorationBuiltIn && w[3] == kBuiltInWorkgroupSize) builtInId = w[1];
    } else if ((op == kOpExecutionMode || op == kOpExecutionModeId) && words >= 6) {
      if (w[2] == kModeLocalSize) {
        hasLocalSize = true;
        localSize = {w[3], w[4], w[5]};
      } else if (w[2] == kModeLocalSizeId) {
        hasLocalSizeId = true;
        localSizeIds = {w[3], w[4], w[5]};
      }
    } else if ((op == kOpConstant || op == kOpSpecConstant) && words >= 4) {
      constants[w[2]] = {op == kOpSpecConstant, w[3]};
    } else if ((op == kOpConstantComposite || op == kOpSpecConstantComposite) && words >= 3) {
      composites[w[2]].assign(w + 3, w + words);
    }
    at += words;
  }
  auto dimOf = [&](uint32_t id) {
    const auto it = constants.find(id);
    if (it == constants.end())
      throw Error("SPIR-V workgroup size: no scalar constant %" + std::to_string(id));
    SpirvWorkgroupDim d;
    d.value = it->second.value;
    if (it->second.spec) {
      const auto spec = specIds.find(id);
      d.specialized = spec != specIds.end();
      if (d.specialized) d.specId = spec->second;
    }
    return d;
  };
  std::array<SpirvWorkgroupDim, 3> dims;
  if (builtInId != 0) {
    const auto it = composites.find(builtInId);
    if (it == composites.end() || it->second.size() != 3)
      throw Error("SPIR-V workgroup size: the WorkgroupSize built-in is not a 3-vector constant");
    for (int a = 0; a < 3; ++a) dims[a] = dimOf(it->second[a]);
  } else if (hasLocalSizeId) {
    for (int a = 0; a < 3; ++a) dims[a] = dimOf(localSizeIds[a]);
  } else if (hasLocalSize) {
    for (int a = 0; a < 3; ++a) dims[a].value = localSize[a];
  } else {
    throw Error("SPIR-V module declares no workgroup size");
  }
  return dims;
}

WorkgroupSize specializedWorkgroup(std::span<const uint32_t> spirv, uint32_t x,
                                   const std::vector<uint32_t>& specialization) {
  const auto dims = spirvWorkgroup(spirv);
  uint32_t v[3];
  for (int a = 0; a < 3; ++a) {
    const SpirvWorkgroupDim& d = dims[a];
    v[a] = d.value;
    if (!d.specialized) continue;
    if (d.specId == 0)
      v[a] = x;
    else if (d.specId <= specialization.size())
      v[a] = specialization[d.specId - 1];
  }
  return {v[0], v[1], v[2]};
}

}  // namespace lsrl::gpu
