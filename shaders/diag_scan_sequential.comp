// The plain diagonal scan: one invocation per (b, pack) walks all T steps. Neighbouring
// invocations read neighbouring packs, so every step is one contiguous row; the baseline
// `lsrl bench vulkan` reports beside the chunked scan.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(constant_id = 1) const bool COMPLEX = false;
layout(constant_id = 2) const bool WIDE = false;

#include "diag_scan_packs.glsl"

DECLARE_PACKED_INPUT(0, a)
DECLARE_PACKED_INPUT(1, x)
DECLARE_PACKED_INPUT(2, h0)
DECLARE_PACKED_STATE(3)
// Strides and row length in packs.
layout(push_constant) uniform Push {
  uint batch, steps, rowPacks, aBatchStride, aStepStride, hasH0;
  uint t0, count;  // this dispatch's steps (kernel_support.h's stepsPerDispatch)
} p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.batch * p.rowPacks; i += stride) {
    const uint bi = i / p.rowPacks, pack = i % p.rowPacks;
    // precise: each step rounds as the CPU twin's (no fused multiply-adds on any device).
    precise real4 state = p.t0 > 0        ? loadH((bi * p.steps + p.t0 - 1) * p.rowPacks + pack)
                 : p.hasH0 != 0 ? h0Pack(i)
                                : real4(0.0);
    for (uint t = p.t0; t < p.t0 + p.count; ++t) {
      const uint slot = (bi * p.steps + t) * p.rowPacks + pack;
      state = packProduct(aPack(bi * p.aBatchStride + t * p.aStepStride + pack), state) + xPack(slot);
      storeH(slot, state);
    }
  }
}
