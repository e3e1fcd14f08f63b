// out[i] = x[i] + y[i] (OP 0) or x[i] · y[i] (OP 1): residual streams and gated branches.
// `out` may be x or y (in place). Invocations loop grid-stride over what a capped grid
// does not reach.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(constant_id = 1) const uint OP = 0;
layout(std430, binding = 0) readonly buffer X { real x[]; };
layout(std430, binding = 1) readonly buffer Y { real y[]; };
layout(std430, binding = 2) writeonly buffer Out { real dst[]; };
layout(push_constant) uniform Push { uint count; };

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
    dst[i] = OP == 0 ? x[i] + y[i] : x[i] * y[i];
}
