// Y[r][i] = Σ_k val[k]·X[r][col[k]] + bias[i], one invocation per output (r, i), its CSR
// row summed in order (as the CPU twin does). Outputs are numbered o = r·m + i so that
// neighbouring invocations read the same input row X[r]. The grid is capped at 65,535
// workgroups: invocations loop grid-stride over the remaining outputs.
// In fp64 (LSRL_F64) a row of at most TERMS terms (the bias and its products) is summed by
// decreasing magnitude instead, as the float64 executor sums it (magnitude_sum.glsl);
// TERMS = 0 keeps index order (rows too long to sort per invocation).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
#ifdef LSRL_F64
// The most terms of a row (its bias and non-zeros); 0: index order.
layout(constant_id = 1) const uint SORTED_TERMS = 0;
const uint TERMS = SORTED_TERMS + 1;  // an array of at least one
#include "magnitude_sum.glsl"
#endif
layout(std430, binding = 0) readonly buffer RowPtr { uint rowPtr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { real val[]; };
layout(std430, binding = 3) readonly buffer Bias { real bias[]; };
layout(std430, binding = 4) readonly buffer X { real x[]; };
layout(std430, binding = 5) writeonly buffer Y { real y[]; };
layout(push_constant) uniform Push {
  uint rows;  // batch rows
  uint m;     // outputs per row
  uint n;     // inputs per row
  uint hasBias;
};

void main() {
  const uint outputs = rows * m;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < outputs; o += stride) {
    const uint r = o / m;
    const uint i = o - r * m;
    const uint xRow = r * n;
#ifdef LSRL_F64
    if (SORTED_TERMS > 0) {
      beginTerms();
      addTerm(hasBias != 0u ? bias[i] : 0.0);
      for (uint k = rowPtr[i]; k < rowPtr[i + 1]; ++k) addTerm(val[k] * x[xRow + col[k]]);
      y[o] = sumTerms();
      continue;
    }
#endif
    // precise: no fused multiply-adds, so the sum rounds as the CPU twin's does on every
    // device (NVIDIA's compiler contracts by default; compiled programs amplify the ulp).
    precise real sum = 0.0;
    const uint end = rowPtr[i + 1];
    for (uint k = rowPtr[i]; k < end; ++k) sum += val[k] * x[xRow + col[k]];
    y[o] = sum + (hasBias != 0u ? bias[i] : 0.0);
  }
}
