// The RG-LRU's transition and input (core/float_batch/conv_lru.h rgLruInputs), per [b][t][c]:
// e = lruC·r; a = 1 if e = 0, else 0 if base = 0, else base^e; bOut = √(1 − a²)·(i·u).
// GLSL's pow is undefined at base 0 (and for 0^0): both cases are spelled out.
// Invocations loop grid-stride over what a capped grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer BaseBuf { float base[]; };  // C, ≥ 0
layout(std430, binding = 1) readonly buffer RBuf { float r[]; };
layout(std430, binding = 2) readonly buffer IBuf { float gateI[]; };
layout(std430, binding = 3) readonly buffer UBuf { float u[]; };
layout(std430, binding = 4) writeonly buffer ABuf { float a[]; };
layout(std430, binding = 5) writeonly buffer BOutBuf { float bOut[]; };
layout(push_constant) uniform Push {
  uint count;  // B·T·C
  uint channels;
  float lruC;
} p;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint k = gl_GlobalInvocationID.x; k < p.count; k += stride) {
    const float e = p.lruC * r[k];
    const float b = base[k % p.channels];
    const float alpha = e == 0.0 ? 1.0 : (b == 0.0 ? 0.0 : pow(b, e));
    a[k] = alpha;
    precise const float gain = sqrt(1.0 - alpha * alpha);  // no fused 1 − α·α: as the twin
    bOut[k] = gain * (gateI[k] * u[k]);
  }
}
