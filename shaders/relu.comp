// out[i] = max(in[i], 0). `in` and `out` may be the same buffer (in place). Invocations
// loop grid-stride over what a capped grid does not reach.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer In { real src[]; };
layout(std430, binding = 1) writeonly buffer Out { real dst[]; };
layout(push_constant) uniform Push { uint count; };

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) dst[i] = max(src[i], 0.0);
}
