// h_t = A h_{t−1} + u_t with a general sparse A (CSR, C × C), or h_t = ReLU(A h_{t−1} + u_t)
// when reluState is set (a ReLU-state LinState, the ReLU-RNN): sequential over time,
// parallel over rows. One workgroup per batch item runs a chunk of steps [t0, t0 + count)
// (several dispatches cover T: kernel_support.h's stepsPerDispatch), starting from h0 or
// from the h_{t0−1} the last chunk wrote: the state lives in shared memory, each invocation
// computes ROWS rows into registers, and barriers separate reading h_{t−1} from
// overwriting it with h_t. In fp64 (LSRL_F64) a row of at most SORTED_TERMS terms (u and
// its products) is summed by decreasing magnitude, as the float64 executor sums it
// (magnitude_sum.glsl); SORTED_TERMS = 0 keeps index order.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint LOCAL = 256;  // invocations per workgroup
layout(constant_id = 1) const uint ROWS = 1;     // rows per invocation: LOCAL·ROWS ≥ C
#ifdef LSRL_F64
layout(constant_id = 2) const uint SORTED_TERMS = 0;  // the most of one row (u, products)
const uint TERMS = SORTED_TERMS + 1;                  // an array of at least one
#include "magnitude_sum.glsl"
#endif
layout(std430, binding = 0) readonly buffer RowPtrBuf { uint rowPtr[]; };
layout(std430, binding = 1) readonly buffer ColBuf { uint col[]; };
layout(std430, binding = 2) readonly buffer ValBuf { real val[]; };
layout(std430, binding = 3) readonly buffer InputBuf { real u[]; };
layout(std430, binding = 4) readonly buffer InitialBuf { real h0[]; };
layout(std430, binding = 5) buffer StateBuf { real h[]; };  // read back at a chunk's start
layout(push_constant) uniform Push {
  uint batch, steps, channels, hasH0, reluState;
  uint t0, count;  // this dispatch's steps (kernel_support.h's stepsPerDispatch)
} p;

shared real state[LOCAL * ROWS];

void main() {
  const uint id = gl_LocalInvocationID.x;
  for (uint bi = gl_WorkGroupID.x; bi < p.batch; bi += gl_NumWorkGroups.x) {
    for (uint r = id; r < p.channels; r += LOCAL)
      state[r] = p.t0 > 0        ? h[(bi * p.steps + p.t0 - 1) * p.channels + r]
                 : p.hasH0 != 0 ? h0[bi * p.channels + r]
                                : 0.0;
    barrier();
    for (uint t = p.t0; t < p.t0 + p.count; ++t) {
      const uint row0 = (bi * p.steps + t) * p.channels;
      real next[ROWS];
      for (uint k = 0; k < ROWS; ++k) {
        const uint r = id + k * LOCAL;
        if (r >= p.channels) break;
        // precise: rounded as the CPU twin rounds (no fused multiply-adds), since the
        // state feeds back and differences would grow with T.
        precise real sum = 0.0;
#ifdef LSRL_F64
        if (SORTED_TERMS > 0) {
          beginTerms();
          addTerm(u[row0 + r]);
          for (uint i = rowPtr[r]; i < rowPtr[r + 1]; ++i) addTerm(val[i] * state[col[i]]);
          next[k] = sumTerms();
        } else
#endif
        {
          for (uint i = rowPtr[r]; i < rowPtr[r + 1]; ++i) sum += val[i] * state[col[i]];
          next[k] = sum + u[row0 + r];
        }
        if (p.reluState != 0) next[k] = max(next[k], 0.0);
        h[row0 + r] = next[k];
      }
      barrier();
      for (uint k = 0; k < ROWS; ++k) {
        const uint r = id + k * LOCAL;
        if (r < p.channels) state[r] = next[k];
      }
      barrier();
    }
  }
}
