// The chunked diagonal scan h_t = a_t ⊙ h_{t−1} + b_t, included by diag_scan_subgroup.comp
// and diag_scan_shared.comp (which #define SCAN_WITH_SUBGROUP 1 or 0 first: the shared
// path must not declare subgroup capabilities a device may lack), and by their
// single-pass twins diag_scan_*_single.comp (which also #define SINGLE_PASS 1: PHASE 3 is
// compiled only there, so the other schedules' SPIR-V, and how drivers round it, stay
// as they were).
//
// A chunk is WIDTH lanes × STEPS steps of one pack (diag_scan_packs.glsl). Each lane
// composes its STEPS affine pairs (a, b) serially, then the lanes scan those compositions
// cooperatively (subgroup shuffles or shared memory, Hillis–Steele) under
// (a, b) then (a', b') = (a'·a, a'·b + b'). Two schedules:
// reduce-then-scan (every chunk of every sequence at once, for few long sequences)
//   PHASE 0 (reduce): the chunk's composition goes to carry[b][chunk][pack] (A, B).
//   PHASE 1 (apply):  carry[b][chunk][pack].A holds the state entering the chunk (from
//                     diag_scan_carry); each lane applies its exclusive prefix to it and
//                     walks its steps, writing h once.
//   Rescanning the chunk from its true carry reads a, b twice and writes h once; local
//   results plus a fix-up pass would also re-read and re-write h.
// chained (one pass, when batch × channels alone fill the device)
//   PHASE 2: a workgroup walks chunks [p.firstChunk, p.firstChunk + p.chunkCount) of its
//            packs in order, the state entering a chunk being the state its last lane
//            left after the previous one (h0 or zero before chunk 0; before a dispatch's
//            first chunk, the h the previous dispatch wrote last). a, b read once.
// single pass (decoupled look-back: every chunk at once, a and b read once)
//   PHASE 3: a workgroup takes the next chunk of its (batch, channel group) from a ticket
//            counter, so every chunk before it belongs to a workgroup that has started.
//            It publishes its packs' compositions (flag 1), then looks back chunk by
//            chunk: a predecessor that has published the states leaving it (flag 2) ends
//            the walk, one that has published its compositions is composed in, and one
//            that has published nothing after SPIN_LIMIT polls has its compositions
//            computed here from a and b, so no workgroup waits on one that is not running
//            (no forward-progress guarantee needed). It publishes the states leaving its
//            chunk (flag 2) and the lanes apply their prefixes as in PHASE 1. One flag per
//            (batch, chunk, channel group), polled by one invocation and shared through
//            shared memory, so the walk's control flow is the workgroup's, not a lane's.
//            Flags and tickets live in the scratch buffer after the compositions, zeroed
//            before the dispatch.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifndef SINGLE_PASS
#define SINGLE_PASS 0
#endif
#if SINGLE_PASS
#extension GL_KHR_memory_scope_semantics : require
#endif
#if SCAN_WITH_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif

layout(local_size_x_id = 0) in;  // WIDTH × PACKS, set by the host (core/gpu/workgroups.cpp)
layout(constant_id = 1) const uint WIDTH = 8;  // lanes scanning one chunk
layout(constant_id = 2) const uint PACKS = 8;  // packs per workgroup
layout(constant_id = 3) const uint STEPS = 8;  // steps per lane
layout(constant_id = 4) const bool COMPLEX = false;
layout(constant_id = 5) const uint PHASE = 0;
layout(constant_id = 6) const bool WIDE = false;

#include "diag_scan_packs.glsl"

DECLARE_PACKED_INPUT(0, a)
DECLARE_PACKED_INPUT(1, x)
DECLARE_PACKED_STATE(2)
layout(std430, binding = 3) buffer CarryBuf { real4 carry[]; };  // per pack: A, B
#if SINGLE_PASS
// PHASE 3's view of the scratch: per (b, chunk, pack) the composition A, B and the state
// leaving the chunk, written and read across workgroups; then flags [b][chunk][channel
// group] and tickets [b][channel group].
layout(std430, binding = 3) coherent buffer LookBackBuf { real4 lookback[]; };
layout(std430, binding = 3) coherent buffer FlagBuf { uint flags[]; };
#endif
DECLARE_PACKED_INPUT(4, h0)
// Strides and row length in packs; hasH0, firstChunk and chunkCount for PHASE 2; flagBase
// (in uints) for PHASE 3: where its flags start, then its tickets.
layout(push_constant) uniform Push {
  uint batch, steps, rowPacks, chunks, aBatchStride, aStepStride, hasH0, firstChunk, chunkCount;
#if SINGLE_PASS
  uint flagBase;
#endif
} p;

#if !SCAN_WITH_SUBGROUP
shared real4 laneA[WIDTH * PACKS];
shared real4 laneB[WIDTH * PACKS];
#endif

#if SINGLE_PASS
const uint AGGREGATE = 1u, INCLUSIVE = 2u;  // PHASE 3's flags
const uint SPIN_LIMIT = 64u;
shared uint ticketChunk, polledFlag;
shared real4 packEntering[PACKS];

real4 h0Or0(uint bi, uint pack) {
  return p.hasH0 != 0 ? h0Pack(bi * p.rowPacks + pack) : real4(0.0);
}

// PHASE 3: the composition (A, B) of chunk j of `pack`, serially from a and b (for a
// predecessor that has published nothing yet).
void composeChunk(uint bi, uint j, uint pack, out real4 A, out real4 B) {
  precise real4 a = packOne(), b = real4(0.0);
  const uint t0 = j * WIDTH * STEPS, t1 = min(t0 + WIDTH * STEPS, p.steps);
  for (uint t = t0; t < t1; ++t) {
    const real4 at = aPack(bi * p.aBatchStride + t * p.aStepStride + pack);
    b = packProduct(at, b) + xPack((bi * p.steps + t) * p.rowPacks + pack);
    a = packProduct(at, a);
  }
  A = a;
  B = b;
}


// PHASE 3: the state entering `chunk` of each pack, for the pack's lanes (every invocation
// of the workgroup calls it: it has barriers). A and B are the lane's composition so far
// (the chunk's, in a pack's last lane).
real4 singlePassEntering(uint bi, uint chunk, uint pack, bool valid, uint lane, uint local,
                         real4 A, real4 B) {
  precise real4 entering = real4(0.0);
  // Each pack's last lane holds the chunk's composition (A, B). Published at once, so
  // successors need not wait for this chunk's own look-back.
  const bool last = valid && lane == WIDTH - 1;
  const uint tile = (bi * p.chunks + chunk) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint cell = (bi * p.chunks + chunk) * p.rowPacks + pack;
  if (last) {
    lookback[3 * cell] = A;
    lookback[3 * cell + 1] = B;
  }
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationIndex == 0 && chunk > 0)
    atomicStore(flags[p.flagBase + tile], AGGREGATE, gl_ScopeDevice,
                gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  // The walk back, its control flow uniform over the workgroup: accA, accB compose
  // the chunks after j (a pack's last lane holds its pack's).
  precise real4 accA = packOne(), accB = real4(0.0);
  int j = int(chunk) - 1;
  uint spins = 0;
  while (j >= 0) {
    const uint jTile = (bi * p.chunks + uint(j)) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (gl_LocalInvocationIndex == 0)
      polledFlag = atomicLoad(flags[p.flagBase + jTile], gl_ScopeDevice,
                              gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
    barrier();
    memoryBarrierBuffer();
    const uint flag = polledFlag;
    barrier();  // read by all before invocation 0 polls again
    const uint jCell = (bi * p.chunks + uint(j)) * p.rowPacks + pack;
    if (flag == INCLUSIVE) {
      if (last) entering = packProduct(accA, lookback[3 * jCell + 2]) + accB;
      break;
    }
    if (flag != AGGREGATE && ++spins < SPIN_LIMIT) continue;
    if (last) {
      real4 jA, jB;
      if (flag == AGGREGATE) {
        jA = lookback[3 * jCell];
        jB = lookback[3 * jCell + 1];
      } else {
        composeChunk(bi, uint(j), pack, jA, jB);
      }
      accB = packProduct(accA, jB) + accB;
      accA = packProduct(accA, jA);
    }
    spins = 0;
    --j;
  }
  if (j < 0 && last) entering = packProduct(accA, h0Or0(bi, pack)) + accB;
  // The states leaving this chunk, then the flag that says so.
  precise real4 leaving = packProduct(A, entering) + B;
  if (last) lookback[3 * cell + 2] = leaving;
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationIndex == 0)
    atomicStore(flags[p.flagBase + tile], INCLUSIVE, gl_ScopeDevice,
                gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  // Every lane of the pack starts from the state entering the chunk.
  if (last) packEntering[local] = entering;
  barrier();
  if (valid) entering = packEntering[local];
  return entering;
}
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
  const uint slot = lane * PACKS + local;
#endif
  const uint pack = gl_WorkGroupID.x * PACKS + local;
  const uint bi = gl_WorkGroupID.z;
  const bool valid = pack < p.rowPacks;
#if SINGLE_PASS
  uint firstChunk = gl_WorkGroupID.y;
  if (PHASE == 3) {
    // Chunks in the order workgroups start: every predecessor of ours is running or done.
    if (gl_LocalInvocationIndex == 0)
      ticketChunk = atomicAdd(
          flags[p.flagBase + p.batch * p.chunks * gl_NumWorkGroups.x + bi * gl_NumWorkGroups.x +
                gl_WorkGroupID.x],
          1u);
    barrier();
    firstChunk = ticketChunk;
  }
#else
  const uint firstChunk = PHASE == 2 ? p.firstChunk : gl_WorkGroupID.y;
#endif
  const uint endChunk = PHASE == 2 ? p.firstChunk + p.chunkCount : firstChunk + 1;

  // The state entering the first chunk (PHASE 2; PHASE 1 reads it from carry).
  precise real4 entering = real4(0.0);
  if (PHASE == 2 && valid) {
    if (firstChunk > 0) {
      entering = loadH((bi * p.steps + firstChunk * WIDTH * STEPS - 1) * p.rowPacks + pack);
    } else if (p.hasH0 != 0) {
      entering = h0Pack(bi * p.rowPacks + pack);
    }
  }

  for (uint chunk = firstChunk; chunk < endChunk; ++chunk) {
    const uint t0 = (chunk * WIDTH + lane) * STEPS;
    const uint n = (valid && t0 < p.steps) ? min(STEPS, p.steps - t0) : 0u;

    // This lane's steps, loaded once, and their composition (A, B).
    real4 as[STEPS];
    real4 xs[STEPS];
    // precise: no fused multiply-adds (the twins' rounding; the chunked order differs anyway).
    precise real4 A = packOne(), B = real4(0.0);
    // Loops run to the constant STEPS (guarded by n) so that compilers unroll them and keep
    // as[] and xs[] in registers: with a variable bound lavapipe indexes them in memory.
    [[unroll]] for (uint k = 0; k < STEPS; ++k) {
      if (k < n) {
        const uint t = t0 + k;
        as[k] = aPack(bi * p.aBatchStride + t * p.aStepStride + pack);
        xs[k] = xPack((bi * p.steps + t) * p.rowPacks + pack);
        A = packProduct(as[k], A);
        B = packProduct(as[k], B) + xs[k];
      }
    }

    // Inclusive scan over the lanes, then the exclusive prefix (identity for lane 0).
    real4 beforeA = packOne(), beforeB = real4(0.0);
#if SCAN_WITH_SUBGROUP
    for (uint d = 1; d < WIDTH; d <<= 1) {
      const real4 earlierA = subgroupShuffleUp(A, d), earlierB = subgroupShuffleUp(B, d);
      if (lane >= d) {
        B = packProduct(A, earlierB) + B;
        A = packProduct(A, earlierA);
      }
    }
    const real4 prevA = subgroupShuffleUp(A, 1), prevB = subgroupShuffleUp(B, 1);
    if (lane > 0) beforeA = prevA, beforeB = prevB;
#else
    if (PHASE == 2) barrier();  // the previous chunk's readers of laneA are done
    laneA[slot] = A;
    laneB[slot] = B;
    for (uint d = 1; d < WIDTH; d <<= 1) {
      barrier();
      real4 earlierA = packOne(), earlierB = real4(0.0);
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

    const uint carrySlot = 2 * ((bi * p.chunks + chunk) * p.rowPacks + pack);
    if (PHASE == 0) {
      if (valid && lane == WIDTH - 1) carry[carrySlot] = A, carry[carrySlot + 1] = B;
      continue;
    }
    if (PHASE == 1 && valid) entering = carry[carrySlot];
#if SINGLE_PASS
    // The state entering the chunk from the compositions published before it.
    if (PHASE == 3) entering = singlePassEntering(bi, chunk, pack, valid, lane, local, A, B);
#endif
    precise real4 state = packProduct(beforeA, entering) + beforeB;
    [[unroll]] for (uint k = 0; k < STEPS; ++k) {
      if (k < n) {
        state = packProduct(as[k], state) + xs[k];
        storeH((bi * p.steps + t0 + k) * p.rowPacks + pack, state);
      }
    }
    if (PHASE != 2) continue;
    // The next chunk starts from the state the chunk's last lane left.
#if SCAN_WITH_SUBGROUP
    for (uint d = 1; d < WIDTH; d <<= 1) {
      const real4 later = subgroupShuffleDown(state, d);
      if (lane + d < WIDTH) state = later;  // lane i ends with lane min(i + 2d − 1, W − 1)'s
    }
    entering = state;
#else
    barrier();  // every lane has read its prefix from laneA
    if (lane == WIDTH - 1) laneA[slot] = state;
    barrier();
    entering = laneA[(WIDTH - 1) * PACKS + local];
#endif
  }
}
