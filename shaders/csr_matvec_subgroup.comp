// Y[r][i] = Σ_k val[k]·X[r][col[k]] + bias[i], one subgroup per output (r, i): its lanes
// stride over the CSR row and subgroupAdd the partial sums. For long rows. The subgroup
// size is whatever the device runs (gl_SubgroupSize, never assumed); the workgroup size is
// specialization constant 0. Subgroups loop grid-stride over the outputs.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer RowPtr { uint rowPtr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { real val[]; };
layout(std430, binding = 3) readonly buffer Bias { real bias[]; };
layout(std430, binding = 4) readonly buffer X { real x[]; };
layout(std430, binding = 5) writeonly buffer Y { real y[]; };
layout(push_constant) uniform Push {
  uint rows;  // batch rows
  uint m;     // outputs per row
  uint n;     // inputs per row
  uint hasBias;
};

void main() {
  const uint outputs = rows * m;
  const uint stride = gl_NumWorkGroups.x * gl_NumSubgroups;
  // o is the same on every lane of a subgroup, so the loop (and subgroupAdd) is uniform.
  for (uint o = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID; o < outputs; o += stride) {
    const uint r = o / m;
    const uint i = o - r * m;
    const uint xRow = r * n;
    real part = 0.0;
    const uint end = rowPtr[i + 1];
    for (uint k = rowPtr[i] + gl_SubgroupInvocationID; k < end; k += gl_SubgroupSize)
      part += val[k] * x[xRow + col[k]];
    const real sum = subgroupAdd(part);
    if (subgroupElect()) y[o] = sum + (hasBias != 0u ? bias[i] : 0.0);
  }
}
