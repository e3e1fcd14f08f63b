// out[i] = in[i]: the bandwidth baseline of `lsrl bench vulkan` (and a plain copy).
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer In { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 dst[]; };
layout(push_constant) uniform Push { uint count4; };  // vec4 elements

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count4; i += stride) dst[i] = src[i];
}
