// h_t = blockdiag(A_k) h_{t−1} + b_t with constant 2×2 blocks ([k][2][2] row-major): one
// invocation per (b, k) walks all T steps. Sequential over time on purpose: a step costs
// one row read, 4 multiply-adds and one row write per block, and B·C/2 independent blocks already
// fill the device for the model sizes we run; a chunked scan would compose 2×2 matrices
// (8 extra FMAs per step and lane) and read the input twice. In fp64 (LSRL_F64) each row
// is summed by decreasing magnitude, as the float64 executor sums it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
#ifdef LSRL_F64
// a + b + c by decreasing magnitude, ties in argument order: magnitude_sum.glsl's order for
// three terms, without its loops (lavapipe counts a loop's iterations across all T steps).
real sumByMagnitude(real a, real b, real c) {
  if (abs(a) < abs(b)) {
    const real t = a;
    a = b, b = t;
  }
  if (abs(b) < abs(c)) {
    const real t = b;
    b = c, c = t;
    if (abs(a) < abs(b)) {
      const real u = a;
      a = b, b = u;
    }
  }
  precise real sum = a + b + c;
  return sum;
}
#endif
layout(std430, binding = 0) readonly buffer BlockBuf { real4 blocks[]; };  // (a00 a01 a10 a11)
layout(std430, binding = 1) readonly buffer InputBuf { real2 x[]; };
layout(std430, binding = 2) readonly buffer InitialBuf { real2 h0[]; };
layout(std430, binding = 3) buffer StateBuf { real2 h[]; };  // read back at a chunk's start
// This dispatch walks steps [t0, t0 + count) (kernel_support.h's stepsPerDispatch).
layout(push_constant) uniform Push { uint batch, steps, blockCount, hasH0, t0, count; } p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.batch * p.blockCount; i += stride) {
    const uint bi = i / p.blockCount, k = i % p.blockCount;
    const real4 A = blocks[k];
    // precise: no fused multiply-adds, so each step rounds as the CPU twin does (a rotation
    // never damps rounding differences; they would grow with T).
    precise real2 state = p.t0 > 0        ? h[(bi * p.steps + p.t0 - 1) * p.blockCount + k]
                         : p.hasH0 != 0 ? h0[i]
                                        : real2(0.0);
    for (uint t = p.t0; t < p.t0 + p.count; ++t) {
      const uint slot = (bi * p.steps + t) * p.blockCount + k;
#ifdef LSRL_F64
      // Each row by decreasing magnitude, as the float64 executor sums it.
      const real2 u = x[slot];
      state = real2(sumByMagnitude(u.x, A.x * state.x, A.y * state.y),
                    sumByMagnitude(u.y, A.z * state.x, A.w * state.y));
#else
      state = real2(A.x * state.x + A.y * state.y, A.z * state.x + A.w * state.y) + x[slot];
#endif
      h[slot] = state;
    }
  }
}
