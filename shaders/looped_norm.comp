// The looped transformer's pre-norm (core/gpu/looped_device.h): per token row,
//   x = src[srcOffset + row] (+ E[row] when INJECT)        the block input
//   z = α ⊙ x / sqrt(mean(x²) + eps)                       (RMS; α = 1 without ALPHA)
// written to z and, with WRITE_XIN, x itself to xin (the attention branch's residual
// base). One workgroup per row: its invocations stride over the channels and sum the
// squares in shared memory; workgroups loop grid-stride over the rows a capped grid does
// not reach. α is row alphaOffset of the per-loop modulation table.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
// A power of two (the reduction halves it).
layout(constant_id = 0) const uint LOCAL = 64;
layout(std430, binding = 0) readonly buffer Src { float src[]; };  // [slice][row][d]
layout(std430, binding = 1) readonly buffer Inj { float e[]; };    // E [row][d]
layout(std430, binding = 2) readonly buffer Mod { float mods[]; };  // [t][γ1 γ2 α1 α2][d]
layout(std430, binding = 3) writeonly buffer XIn { float xin[]; };  // [row][d]
layout(std430, binding = 4) writeonly buffer Z { float z[]; };      // [row][d]
layout(push_constant) uniform Push {
  uint rows;
  uint d;
  uint srcOffset;
  uint alphaOffset;
  uint flags;  // INJECT | RMS | ALPHA | WRITE_XIN
  float eps;
} p;
#define INJECT 1u
#define RMS 2u
#define ALPHA 4u
#define WRITE_XIN 8u

shared float partial[LOCAL];

float inputAt(uint row, uint i) {
  const float x = src[p.srcOffset + row * p.d + i];
  return (p.flags & INJECT) != 0u ? x + e[row * p.d + i] : x;
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  // The row loop depends on the workgroup only, so every barrier() is in uniform control flow.
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    float ss = 0.0;
    for (uint i = lid; i < p.d; i += LOCAL) {
      const float x = inputAt(row, i);
      ss += x * x;
    }
    partial[lid] = ss;
    barrier();
    for (uint half_ = LOCAL / 2; half_ > 0; half_ >>= 1) {
      if (lid < half_) partial[lid] += partial[lid + half_];
      barrier();
    }
    const float scale = (p.flags & RMS) != 0u ? 1.0 / sqrt(partial[0] / float(p.d) + p.eps) : 1.0;
    barrier();  // partial[0] is read before the next row overwrites it
    for (uint i = lid; i < p.d; i += LOCAL) {
      const float x = inputAt(row, i);
      if ((p.flags & WRITE_XIN) != 0u) xin[row * p.d + i] = x;
      const float a = (p.flags & ALPHA) != 0u ? mods[p.alphaOffset + i] : 1.0;
      z[row * p.d + i] = a * x * scale;
    }
  }
}
