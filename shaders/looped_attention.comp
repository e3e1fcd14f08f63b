// The looped transformer's attention core (core/gpu/looped_device.h): one workgroup per
// (sequence b, head h, query n), looping grid-stride over what a capped grid does not
// reach. Its invocations stride over the keys j (j ≤ n when CAUSAL) for the scores
// ⟨q_n, k_j⟩·scale, which go to the query's row of `probs` (the loop's slice at
// probOffset, [b][h][n][j]); the maximum and the total are reduced in shared memory; the
// row then holds the weights exp(λ(score − max)) (softmax) or [score = max] (HARDMAX: ties
// split the mass evenly), then the probabilities (masked keys 0). Scores are stored, not
// recomputed, so hardmax compares exactly the values it maximised over. A NaN score makes
// the whole row NaN, as the CPU reference. Last, the invocations stride over the head's s
// channels for Σ_j p_j v_j (in key order, keys with p_j = 0 skipped so a masked NaN value
// stays out) into heads[b][n][h·s …].
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
// A power of two (the reductions halve it).
layout(constant_id = 0) const uint LOCAL = 64;
layout(std430, binding = 0) readonly buffer Q { float q[]; };  // [b][n][heads·s]
layout(std430, binding = 1) readonly buffer K { float k[]; };
layout(std430, binding = 2) readonly buffer V { float v[]; };
// Coherent: the output phase reads probabilities other invocations of the group wrote.
layout(std430, binding = 3) coherent buffer Probs { float probs[]; };  // [slice][b][h][n][j]
layout(std430, binding = 4) writeonly buffer Heads { float heads[]; };  // [b][n][heads·s]
layout(push_constant) uniform Push {
  uint items;  // B · heads · N
  uint N;
  uint heads;
  uint s;
  uint probOffset;
  uint flags;  // CAUSAL | HARDMAX
  float lambda;
  float scale;
} p;
#define CAUSAL 1u
#define HARDMAX 2u

shared float red[LOCAL];
shared uint nanRed[LOCAL];

// Tree reductions over the group (every invocation calls them: uniform control flow).
float groupMax(float x) {
  red[gl_LocalInvocationID.x] = x;
  barrier();
  for (uint half_ = LOCAL / 2; half_ > 0; half_ >>= 1) {
    const uint i = gl_LocalInvocationID.x;
    if (i < half_) red[i] = max(red[i], red[i + half_]);
    barrier();
  }
  const float r = red[0];
  barrier();  // red is free again
  return r;
}
float groupSum(float x) {
  red[gl_LocalInvocationID.x] = x;
  barrier();
  for (uint half_ = LOCAL / 2; half_ > 0; half_ >>= 1) {
    if (gl_LocalInvocationID.x < half_)
      red[gl_LocalInvocationID.x] += red[gl_LocalInvocationID.x + half_];
    barrier();
  }
  const float r = red[0];
  barrier();
  return r;
}
bool groupAny(bool x) {
  nanRed[gl_LocalInvocationID.x] = x ? 1u : 0u;
  barrier();
  for (uint half_ = LOCAL / 2; half_ > 0; half_ >>= 1) {
    if (gl_LocalInvocationID.x < half_)
      nanRed[gl_LocalInvocationID.x] |= nanRed[gl_LocalInvocationID.x + half_];
    barrier();
  }
  const bool r = nanRed[0] != 0u;
  barrier();
  return r;
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint width = p.heads * p.s;
  // The item loop depends on the workgroup only, so every barrier() is in uniform control flow.
  for (uint item = gl_WorkGroupID.x; item < p.items; item += gl_NumWorkGroups.x) {
    const uint n = item % p.N, h = (item / p.N) % p.heads, b = item / (p.N * p.heads);
    const uint keys = (p.flags & CAUSAL) != 0u ? n + 1 : p.N;
    const uint row = p.probOffset + item * p.N;
    const uint query = (b * p.N + n) * width + h * p.s;
    float mx = uintBitsToFloat(0xff800000u);  // −∞
    bool hasNan = false;
    for (uint j = lid; j < keys; j += LOCAL) {
      const uint key = (b * p.N + j) * width + h * p.s;
      float dot = 0.0;
      for (uint c = 0; c < p.s; ++c) dot += q[query + c] * k[key + c];
      const float score = dot * p.scale;
      probs[row + j] = score;
      hasNan = hasNan || isnan(score);
      mx = max(mx, score);
    }
    for (uint j = keys + lid; j < p.N; j += LOCAL) probs[row + j] = 0.0;
    mx = groupMax(mx);
    hasNan = groupAny(hasNan);
    float total = 0.0;
    for (uint j = lid; j < keys; j += LOCAL) {  // each invocation rereads its own scores
      const float score = probs[row + j];
      const float w =
          (p.flags & HARDMAX) != 0u ? (score == mx ? 1.0 : 0.0) : exp(p.lambda * (score - mx));
      probs[row + j] = w;
      total += w;
    }
    total = groupSum(total);
    for (uint j = lid; j < keys; j += LOCAL)
      probs[row + j] = hasNan ? uintBitsToFloat(0x7fc00000u) : probs[row + j] / total;
    memoryBarrierBuffer();
    barrier();
    const uint dst = (b * p.N + n) * width + h * p.s;
    for (uint c = lid; c < p.s; c += LOCAL) {
      float acc = 0.0;
      for (uint j = 0; j < keys; ++j) {
        const float pj = probs[row + j];
        if (pj != 0.0) acc += pj * v[(b * p.N + j) * width + h * p.s + c];
      }
      heads[dst + c] = acc;
    }
    // The next item's first writes to probs are another row; red is freed by the reductions.
  }
}
