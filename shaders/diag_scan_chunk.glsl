// The chunked diagonal scan h_t = a_t ⊙ h_{t−1} + b_t, included by diag_scan_subgroup.comp
// and diag_scan_shared.comp (which #define SCAN_WITH_SUBGROUP 1 or 0 first: the shared
// path must not declare subgroup capabilities a device may lack).
//
// A chunk is WIDTH lanes × STEPS steps of one pack (diag_scan_packs.glsl). Each lane
// composes its STEPS affine pairs (a, b) serially, then the lanes scan those compositions
// cooperatively (subgroup shuffles or shared memory, Hillis–Steele) under
// (a, b) then (a', b') = (a'·a, a'·b + b').
//   PHASE 0 (reduce): the chunk's composition goes to carry[b][chunk][pack] (A, B).
//   PHASE 1 (apply):  carry[b][chunk][pack].A holds the state entering the chunk (from
//                     diag_scan_carry); each lane applies its exclusive prefix to it and
//                     walks its steps, writing h once.
// Rescanning the chunk from its true carry (reduce-then-scan) reads a, b twice and writes
// h once; local results plus a fix-up pass would also re-read and re-write h.
#extension GL_GOOGLE_include_directive : require
#if SCAN_WITH_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif

layout(local_size_x_id = 6) in;  // WIDTH × PACKS, set by the host
layout(constant_id = 0) const uint WIDTH = 8;  // lanes scanning one chunk
layout(constant_id = 1) const uint PACKS = 8;  // packs per workgroup
layout(constant_id = 2) const uint STEPS = 8;  // steps per lane
layout(constant_id = 3) const bool COMPLEX = false;
layout(constant_id = 4) const uint PHASE = 0;
layout(constant_id = 5) const bool WIDE = false;

#include "diag_scan_packs.glsl"

DECLARE_PACKED_INPUT(0, a)
DECLARE_PACKED_INPUT(1, x)
DECLARE_PACKED_OUTPUT(2)
layout(std430, binding = 3) buffer CarryBuf { vec4 carry[]; };  // per pack: A, B
// Strides and row length in packs.
layout(push_constant) uniform Push {
  uint batch, steps, rowPacks, chunks, aBatchStride, aStepStride;
} p;

#if !SCAN_WITH_SUBGROUP
shared vec4 laneA[WIDTH * PACKS];
shared vec4 laneB[WIDTH * PACKS];
#endif

void main() {
#if SCAN_WITH_SUBGROUP
  // Lanes of a chunk are consecutive invocations of one subgroup (WIDTH divides the
  // subgroup size), whatever the mapping of local ids to subgroups.
  const uint lane = gl_SubgroupInvocationID % WIDTH;
  const uint local = (gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID) / WIDTH;
#else
  // Packs innermost, so a lane's loads of neighbouring packs are contiguous.
  const uint lane = gl_LocalInvocationIndex / PACKS;
  const uint local = gl_LocalInvocationIndex % PACKS;
#endif
  const uint pack = gl_WorkGroupID.x * PACKS + local;
  const uint chunk = gl_WorkGroupID.y;
  const uint bi = gl_WorkGroupID.z;
  const uint t0 = (chunk * WIDTH + lane) * STEPS;
  const uint n = (pack < p.rowPacks && t0 < p.steps) ? min(STEPS, p.steps - t0) : 0u;

  // This lane's steps, loaded once, and their composition (A, B).
  vec4 as[STEPS];
  vec4 xs[STEPS];
  // precise: no fused multiply-adds (the twins' rounding; the chunked order differs anyway).
  precise vec4 A = packOne(), B = vec4(0.0);
  for (uint k = 0; k < n; ++k) {
    const uint t = t0 + k;
    as[k] = aPack(bi * p.aBatchStride + t * p.aStepStride + pack);
    xs[k] = xPack((bi * p.steps + t) * p.rowPacks + pack);
    A = packProduct(as[k], A);
    B = packProduct(as[k], B) + xs[k];
  }

  // Inclusive scan over the lanes, then the exclusive prefix (identity for lane 0).
  vec4 beforeA = packOne(), beforeB = vec4(0.0);
#if SCAN_WITH_SUBGROUP
  for (uint d = 1; d < WIDTH; d <<= 1) {
    const vec4 earlierA = subgroupShuffleUp(A, d), earlierB = subgroupShuffleUp(B, d);
    if (lane >= d) {
      B = packProduct(A, earlierB) + B;
      A = packProduct(A, earlierA);
    }
  }
  const vec4 prevA = subgroupShuffleUp(A, 1), prevB = subgroupShuffleUp(B, 1);
  if (lane > 0) beforeA = prevA, beforeB = prevB;
#else
  const uint slot = lane * PACKS + local;
  laneA[slot] = A;
  laneB[slot] = B;
  for (uint d = 1; d < WIDTH; d <<= 1) {
    barrier();
    vec4 earlierA = packOne(), earlierB = vec4(0.0);
    if (lane >= d) earlierA = laneA[slot - d * PACKS], earlierB = laneB[slot - d * PACKS];
    barrier();
    B = packProduct(A, earlierB) + B;
    A = packProduct(A, earlierA);
    laneA[slot] = A;
    laneB[slot] = B;
  }
  barrier();
  if (lane > 0) beforeA = laneA[slot - PACKS], beforeB = laneB[slot - PACKS];
#endif

  if (pack >= p.rowPacks) return;
  const uint carrySlot = 2 * ((bi * p.chunks + chunk) * p.rowPacks + pack);
  if (PHASE == 0) {
    if (lane == WIDTH - 1) carry[carrySlot] = A, carry[carrySlot + 1] = B;
    return;
  }
  precise vec4 state = packProduct(beforeA, carry[carrySlot]) + beforeB;
  for (uint k = 0; k < n; ++k) {
    state = packProduct(as[k], state) + xs[k];
    storeH((bi * p.steps + t0 + k) * p.rowPacks + pack, state);
  }
}
