// GateLoop's read-out (core/gpu/gateloop_device.h): y_t = H_tᵀ q_t per head,
// y[token][head·d_h + c] = Σ_r q[token][head·d_h + r] · H[token][head·d_h + r][c] (complex
// H, real q), one invocation per output, looping grid-stride past a capped grid.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer QBuf { float q[]; };       // [token][C]
layout(std430, binding = 1) readonly buffer StateBuf { vec2 h[]; };    // [token][C·d_h]
layout(std430, binding = 2) writeonly buffer YBuf { vec2 y[]; };       // [token][C]
layout(push_constant) uniform Push {
  uint count;  // tokens · C
  uint width;  // C = heads · d_h
  uint dh;
} p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < p.count; o += stride) {
    const uint token = o / p.width, j = o % p.width;
    const uint first = j - j % p.dh, col = j % p.dh;  // head·d_h, c
    vec2 sum = vec2(0.0);
    for (uint r = 0; r < p.dh; ++r)
      sum += q[token * p.width + first + r] * h[(token * p.width + first + r) * p.dh + col];
    y[o] = sum;
  }
}
