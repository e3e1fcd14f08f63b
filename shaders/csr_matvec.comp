// Y[r][i] = Σ_k val[k]·X[r][col[k]] + bias[i], one invocation per output (r, i), its CSR
// row summed in order (as the CPU twin does). Outputs are numbered o = r·m + i so that
// neighbouring invocations read the same input row X[r]. The grid is capped at 65,535
// workgroups: invocations loop grid-stride over the remaining outputs.
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer RowPtr { uint rowPtr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) readonly buffer X { float x[]; };
layout(std430, binding = 5) writeonly buffer Y { float y[]; };
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
    // precise: no fused multiply-adds, so the sum rounds as the CPU twin's does on every
    // device (NVIDIA's compiler contracts by default; compiled programs amplify the ulp).
    precise float sum = 0.0;
    const uint end = rowPtr[i + 1];
    for (uint k = rowPtr[i]; k < end; ++k) sum += val[k] * x[xRow + col[k]];
    y[o] = sum + (hasBias != 0u ? bias[i] : 0.0);
  }
}
