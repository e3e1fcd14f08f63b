// Phase 2 of the chunked diagonal scan: for each (b, pack), walk the chunks in order and
// replace each chunk's composition (A, B) in carry[b][chunk][pack] by the state entering
// it (in A's place), starting from h0 (or zero). The chunks are few (T / chunk length), so
// a plain sequential walk per pack is enough.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(constant_id = 1) const bool COMPLEX = false;
layout(constant_id = 2) const bool WIDE = false;

#include "diag_scan_packs.glsl"

DECLARE_PACKED_INPUT(0, h0)
layout(std430, binding = 1) buffer CarryBuf { real4 carry[]; };
layout(push_constant) uniform Push { uint batch, rowPacks, chunks, hasH0; } p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.batch * p.rowPacks; i += stride) {
    const uint bi = i / p.rowPacks, pack = i % p.rowPacks;
    real4 state = p.hasH0 != 0 ? h0Pack(i) : real4(0.0);
    for (uint chunk = 0; chunk < p.chunks; ++chunk) {
      const uint slot = 2 * ((bi * p.chunks + chunk) * p.rowPacks + pack);
      // The last chunk's composition is never computed (nothing follows it).
      const bool last = chunk + 1 == p.chunks;
      const real4 A = last ? packOne() : carry[slot], B = last ? real4(0.0) : carry[slot + 1];
      carry[slot] = state;
      state = packProduct(A, state) + B;
    }
  }
}
