// A compiled path (Linear, ReLU, Multi, LinState, Add, Mul layers) in one dispatch: one
// workgroup per sequence walks its steps [t0, t0 + count), and at each step runs every
// layer on that step's token, in shared memory (core/gpu/path_fusion.h lays it out and
// packs the program). The layered runner runs each layer over the whole tile as its own
// dispatches; this kernel replaces those dozens of dispatches and barriers per tile with
// one (or, where the device caps loop iterations, kernel_support.h's stepsPerDispatch).
//
// Every sum runs in the CPU twin's order (core/float_batch: a CSR row in column order then
// its bias; a·h + u; the 2×2 block's two products then u; a general row's products then
// u), `precise` so no multiply-add is fused: fp32 results equal the CPU runner's bit for
// bit. In fp64 (LSRL_F64) rows flagged sorted are summed by decreasing magnitude, as the
// float64 executor sums them (magnitude_sum.glsl), like the layered fp64 kernels.
//
// A LinState's region holds h_{t−1} when a step starts and h_t after its layer ran; the
// states enter a dispatch from the layers' initial states (t0 = 0) or from `carry`, where
// the dispatch before left them.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint LOCAL = 64;  // invocations per workgroup (one sequence)
layout(constant_id = 1) const uint SHARED = 1;  // values one sequence's step uses
#ifdef LSRL_F64
layout(constant_id = 2) const uint SORTED_TERMS = 0;  // the most terms of a sorted row
const uint TERMS = SORTED_TERMS + 1;                  // an array of at least one
#include "magnitude_sum.glsl"
#endif

// Layer descriptors: DESCRIPTOR uints each at meta[16·l] (path_fusion.cpp writes them).
const uint DESCRIPTOR = 16;
const uint D_KIND = 0, D_OUT = 1, D_WIDTH = 2, D_IN0 = 3, D_IN1 = 4, D_ROWS = 5, D_BIAS = 6,
           D_SORTED = 7, D_RECURRENCE = 8, D_TRANSITION = 9, D_STATE_SORTED = 10,
           D_RELU_STATE = 11, D_INIT = 12, D_CARRY = 13;
const uint LINEAR = 0, RELU = 1, MULTI = 2, LINSTATE = 3, ADD = 4, MUL = 5;
const uint DIAGONAL = 0, BLOCKS2 = 1, GENERAL = 2;
const uint NONE = 0xffffffffu;

// meta: descriptors, then row pointers (absolute entry indices), then column indices at
// colBase + entry. coef: entry values at their entry index, then biases, transitions and
// initial states at the descriptors' offsets.
layout(std430, binding = 0) readonly buffer MetaBuf { uint meta[]; };
layout(std430, binding = 1) readonly buffer CoefBuf { real coef[]; };
layout(std430, binding = 2) readonly buffer TokenBuf { real x[]; };  // [B][T][inWidth]
layout(std430, binding = 3) writeonly buffer OutBuf { real y[]; };   // [B][T][outWidth]
layout(std430, binding = 4) buffer CarryBuf { real carry[]; };       // [B][stateValues]
layout(push_constant) uniform Push {
  uint firstSequence, steps, t0, count;
  uint layers, inWidth, outWidth, outOffset;
  uint colBase, stateValues, scratchOffset, pad;
} p;

shared real v[SHARED];

// Row r of the CSR matrix whose row pointers start at meta[rows], applied to v[in..], plus
// `last` (a bias, or a recurrence's drive). The bias variant adds it after the products and
// the drive variant too, as the CPU twins do; sorted rows (fp64) add every term by
// decreasing magnitude with `last` first among equals.
real rowSum(uint rows, uint r, uint in0, real last, bool sorted) {
  const uint begin = meta[rows + r], end = meta[rows + r + 1];
#ifdef LSRL_F64
  if (SORTED_TERMS > 0 && sorted) {
    beginTerms();
    addTerm(last);
    for (uint k = begin; k < end; ++k) addTerm(coef[k] * v[in0 + meta[p.colBase + k]]);
    return sumTerms();
  }
#endif
  // precise: no fused multiply-adds, so the sum rounds as the CPU twin's does.
  precise real sum = 0.0;
  for (uint k = begin; k < end; ++k) sum += coef[k] * v[in0 + meta[p.colBase + k]];
  precise real total = sum + last;
  return total;
}

real biasOf(uint d, uint r) {
  const uint bias = meta[d + D_BIAS];
  return bias == NONE ? 0.0 : coef[bias + r];
}

#ifdef LSRL_F64
// a + b + c by decreasing magnitude, ties in argument order (block_scan2.comp's order).
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

// Layer l at the current step. Every invocation of the workgroup calls it (the kind is the
// same for all), so the general recurrence's barrier is in uniform control flow.
void runLayer(uint l, uint id) {
  const uint d = l * DESCRIPTOR;
  const uint kind = meta[d + D_KIND], out0 = meta[d + D_OUT], width = meta[d + D_WIDTH];
  const uint in0 = meta[d + D_IN0], in1 = meta[d + D_IN1];
  const bool sorted = meta[d + D_SORTED] != 0;
  if (kind == LINEAR) {
    for (uint r = id; r < width; r += LOCAL)
      v[out0 + r] = rowSum(meta[d + D_ROWS], r, in0, biasOf(d, r), sorted);
  } else if (kind == RELU) {
    for (uint r = id; r < width; r += LOCAL) v[out0 + r] = max(v[in0 + r], 0.0);
  } else if (kind == MULTI) {
    for (uint r = id; r < width; r += LOCAL) {
      precise real product = v[in0 + r] * v[in0 + r + width];
      v[out0 + r] = product;
    }
  } else if (kind == ADD) {
    for (uint r = id; r < width; r += LOCAL) {
      precise real s = v[in0 + r] + v[in1 + r];
      v[out0 + r] = s;
    }
  } else if (kind == MUL) {
    for (uint r = id; r < width; r += LOCAL) {
      precise real product = v[in0 + r] * v[in1 + r];
      v[out0 + r] = product;
    }
  } else if (kind == LINSTATE) {
    const uint recurrence = meta[d + D_RECURRENCE], transition = meta[d + D_TRANSITION];
    if (recurrence == DIAGONAL) {
      // Each invocation owns its channels: h_{t−1} is read and h_t written in place.
      for (uint r = id; r < width; r += LOCAL) {
        const real u = rowSum(meta[d + D_ROWS], r, in0, biasOf(d, r), sorted);
        precise real h = coef[transition + r] * v[out0 + r] + u;
        v[out0 + r] = h;
      }
    } else if (recurrence == BLOCKS2) {
      // Each invocation owns whole blocks (channels 2k, 2k + 1).
      for (uint k = id; 2 * k < width; k += LOCAL) {
        const real u0 = rowSum(meta[d + D_ROWS], 2 * k, in0, biasOf(d, 2 * k), sorted);
        const real u1 = rowSum(meta[d + D_ROWS], 2 * k + 1, in0, biasOf(d, 2 * k + 1), sorted);
        const real a00 = coef[transition + 4 * k], a01 = coef[transition + 4 * k + 1];
        const real a10 = coef[transition + 4 * k + 2], a11 = coef[transition + 4 * k + 3];
        const real s0 = v[out0 + 2 * k], s1 = v[out0 + 2 * k + 1];
#ifdef LSRL_F64
        if (meta[d + D_STATE_SORTED] != 0) {  // always in fp64, as block_scan2 sums
          v[out0 + 2 * k] = sumByMagnitude(u0, a00 * s0, a01 * s1);
          v[out0 + 2 * k + 1] = sumByMagnitude(u1, a10 * s0, a11 * s1);
          continue;
        }
#endif
        precise real h0 = a00 * s0 + a01 * s1 + u0;
        precise real h1 = a10 * s0 + a11 * s1 + u1;
        v[out0 + 2 * k] = h0;
        v[out0 + 2 * k + 1] = h1;
      }
    } else {
      // Rows read every channel of h_{t−1}: all rows into the scratch region first.
      const bool stateSorted = meta[d + D_STATE_SORTED] != 0;
      const bool reluState = meta[d + D_RELU_STATE] != 0;
      for (uint r = id; r < width; r += LOCAL) {
        const real u = rowSum(meta[d + D_ROWS], r, in0, biasOf(d, r), sorted);
        real h = rowSum(transition, r, out0, u, stateSorted);
        v[p.scratchOffset + r] = reluState ? max(h, 0.0) : h;
      }
      barrier();
      for (uint r = id; r < width; r += LOCAL) v[out0 + r] = v[p.scratchOffset + r];
    }
  }
}

void main() {
  const uint id = gl_LocalInvocationID.x;
  const uint seq = p.firstSequence + gl_WorkGroupID.x;
  // The states entering this dispatch.
  for (uint l = 0; l < p.layers; ++l) {
    const uint d = l * DESCRIPTOR;
    if (meta[d + D_KIND] != LINSTATE) continue;
    const uint out0 = meta[d + D_OUT], width = meta[d + D_WIDTH];
    const uint init = meta[d + D_INIT], slot = seq * p.stateValues + meta[d + D_CARRY];
    for (uint r = id; r < width; r += LOCAL)
      v[out0 + r] = p.t0 > 0 ? carry[slot + r] : coef[init + r];
  }
  for (uint t = p.t0; t < p.t0 + p.count; ++t) {
    const uint row = seq * p.steps + t;
    for (uint c = id; c < p.inWidth; c += LOCAL) v[c] = x[row * p.inWidth + c];
    barrier();
    for (uint l = 0; l < p.layers; ++l) {
      runLayer(l, id);
      barrier();
    }
    for (uint c = id; c < p.outWidth; c += LOCAL) y[row * p.outWidth + c] = v[p.outOffset + c];
  }
  // The states leaving it, for the next dispatch.
  if (p.t0 + p.count < p.steps) {
    for (uint l = 0; l < p.layers; ++l) {
      const uint d = l * DESCRIPTOR;
      if (meta[d + D_KIND] != LINSTATE) continue;
      const uint out0 = meta[d + D_OUT], width = meta[d + D_WIDTH];
      const uint slot = seq * p.stateValues + meta[d + D_CARRY];
      for (uint r = id; r < width; r += LOCAL) carry[slot + r] = v[out0 + r];
    }
  }
}
