// LayerNorm of every row, y = (x − mean) / sqrt(var + eps) ⊙ gain + bias, the twin of
// core/seed_models/dense_layers.h's layerNorm (float64 there, fp32 here): the seed models'
// pre-norm on the device (core/gpu/norm_kernels.h). One workgroup per row: its invocations
// stride over the channels and sum in shared memory, first x for the mean, then
// (x − mean)² for the variance, as the twin does; workgroups loop grid-stride over the
// rows a capped grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
// A power of two (the reduction halves it).
layout(constant_id = 0) const uint LOCAL = 64;
layout(std430, binding = 0) readonly buffer Gain { float gain[]; };  // [d]
layout(std430, binding = 1) readonly buffer Bias { float bias[]; };  // [d]
layout(std430, binding = 2) readonly buffer X { float x[]; };        // [row][d]
layout(std430, binding = 3) writeonly buffer Y { float y[]; };       // [row][d]
layout(push_constant) uniform Push {
  uint rows;
  uint d;
  float eps;
} p;

shared float partial[LOCAL];

// The sum of every invocation's `v` (every invocation calls it: it has barriers).
float workgroupSum(float v, uint lid) {
  partial[lid] = v;
  barrier();
  for (uint half_ = LOCAL / 2; half_ > 0; half_ >>= 1) {
    if (lid < half_) partial[lid] += partial[lid + half_];
    barrier();
  }
  const float total = partial[0];
  barrier();  // read before the next sum overwrites it
  return total;
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  // The row loop depends on the workgroup only, so every barrier() is in uniform control flow.
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    const uint base = row * p.d;
    float s = 0.0;
    for (uint i = lid; i < p.d; i += LOCAL) s += x[base + i];
    const float mean = workgroupSum(s, lid) / float(p.d);
    float ss = 0.0;
    for (uint i = lid; i < p.d; i += LOCAL) {
      const float c = x[base + i] - mean;
      ss += c * c;
    }
    const float inv = 1.0 / sqrt(workgroupSum(ss, lid) / float(p.d) + p.eps);
    for (uint i = lid; i < p.d; i += LOCAL) y[base + i] = (x[base + i] - mean) * inv * gain[i] + bias[i];
  }
}
