// The looped transformer's gated residual (core/gpu/looped_device.h): for every entry i
// of rows × d, g = γ[i mod d] · branch[i] and out[outOffset + i] = base[baseOffset + i] + g;
// with WRITE_BRANCH also branchOut[branchOffset + i] = g (the trace's attn_branch /
// mlp_branch). γ is row gammaOffset of the per-loop modulation table. Invocations loop
// grid-stride over what a capped grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer Base { float base[]; };
layout(std430, binding = 1) readonly buffer Branch { float branch[]; };  // [row][d]
layout(std430, binding = 2) readonly buffer Mod { float mods[]; };       // [t][γ1 γ2 α1 α2][d]
layout(std430, binding = 3) writeonly buffer Out { float dst[]; };
layout(std430, binding = 4) writeonly buffer BranchOut { float branchOut[]; };
layout(push_constant) uniform Push {
  uint count;  // rows · d
  uint d;
  uint baseOffset;
  uint outOffset;
  uint gammaOffset;
  uint branchOffset;
  uint writeBranch;
} p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) {
    const float g = mods[p.gammaOffset + i % p.d] * branch[i];
    dst[p.outOffset + i] = base[p.baseOffset + i] + g;
    if (p.writeBranch != 0u) branchOut[p.branchOffset + i] = g;
  }
}
