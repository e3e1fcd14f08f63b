// GateLoop's scan leaves (core/gpu/gateloop_device.h), one item per state entry
// (token, head, r, c) of the d_h × d_h heads, entries [token][head·d_h + r][c]:
//   b = k[r]·v[c] (real, stored complex)   and, with expandA, aFull = a[r]: the transition
// scales the key rows (docs/spec/seed-models.md §2.1), so every column of row r gets a[r]. With
// d_h = 1 the scan reads a as it is and expandA is off (aFull is never written).
// Invocations loop grid-stride over what a capped grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer ABuf { vec2 a[]; };           // [token][C]
layout(std430, binding = 1) readonly buffer KBuf { float k[]; };          // [token][C]
layout(std430, binding = 2) readonly buffer VBuf { float v[]; };          // [token][C]
layout(std430, binding = 3) writeonly buffer AFullBuf { vec2 aFull[]; };  // [token][C·d_h]
layout(std430, binding = 4) writeonly buffer LeafBBuf { vec2 b[]; };      // [token][C·d_h]
layout(push_constant) uniform Push {
  uint count;  // tokens · C · d_h
  uint width;  // C = heads · d_h
  uint dh;
  uint expandA;
} p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint entries = p.width * p.dh;
  for (uint e = gl_GlobalInvocationID.x; e < p.count; e += stride) {
    const uint token = e / entries, within = e % entries;
    const uint row = within / p.dh, col = within % p.dh;  // row = head·d_h + r
    const uint base = token * p.width;
    b[e] = vec2(k[base + row] * v[base + row - row % p.dh + col], 0.0);
    if (p.expandA != 0) aFull[e] = a[base + row];
  }
}
