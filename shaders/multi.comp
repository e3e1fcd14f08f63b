// LSRL's Multi: Y[r][i] = X[r][i] · X[r][i + h] (X is rows × 2h, Y rows × h). Invocations
// loop grid-stride over what a capped grid does not reach.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer X { real x[]; };
layout(std430, binding = 1) writeonly buffer Y { real y[]; };
layout(push_constant) uniform Push {
  uint rows;
  uint h;  // half the input width
};

void main() {
  const uint outputs = rows * h;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < outputs; o += stride) {
    const uint r = o / h;
    const uint in0 = o + r * h;  // r·2h + i
    y[o] = x[in0] * x[in0 + h];
  }
}
