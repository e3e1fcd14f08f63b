// Hawk's depthwise causal convolution (core/float_batch/conv_lru.h causalConv1d), one invocation
// per output [b][t][c]: out = bias[c] + Σ_{j ≤ min(K−1, t)} taps[c][K−1−j] · x[b][t−j][c],
// zero taps skipped as the reference does. Invocations loop grid-stride over what a capped
// grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) readonly buffer TapBuf { float taps[]; };  // [C][K]
layout(std430, binding = 1) readonly buffer BiasBuf { float bias[]; };
layout(std430, binding = 2) readonly buffer InBuf { float x[]; };
layout(std430, binding = 3) writeonly buffer OutBuf { float y[]; };
layout(push_constant) uniform Push { uint batch, steps, channels, K; } p;

void main() {
  const uint total = p.batch * p.steps * p.channels;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < total; o += stride) {
    const uint c = o % p.channels;
    const uint t = (o / p.channels) % p.steps;
    const uint first = c * p.K + p.K - 1;  // the tap on the current token
    precise float sum = bias[c];  // rounded as the CPU twin's sum (see csr_matvec.comp)
    for (uint j = 0; j < p.K && j <= t; ++j) {
      const float w = taps[first - j];
      if (w != 0.0) sum += w * x[o - j * p.channels];
    }
    y[o] = sum;
  }
}
