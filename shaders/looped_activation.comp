// The looped transformer's MLP activation (core/gpu/looped_device.h), in place over
// `count` values: GELU with the exact erf (PyTorch's nn.GELU() default) or ReLU (NaN
// stays NaN, as the CPU reference). Invocations loop grid-stride past a capped grid.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(std430, binding = 0) buffer Values { float x[]; };
layout(push_constant) uniform Push {
  uint count;
  uint relu;  // 1: ReLU, 0: GELU
} p;

// GLSL has no erf: Numerical Recipes' erfc (Chebyshev fit, fractional error < 1.2e-7
// everywhere), so GELU(u) = ½u(1 + erf(u/√2)) is within a few 1e-8·|u| of the exact value.
float erfApprox(float x) {
  const float z = abs(x);
  const float t = 1.0 / (1.0 + 0.5 * z);
  const float poly =
      -1.26551223 +
      t * (1.00002368 +
           t * (0.37409196 +
                t * (0.09678418 +
                     t * (-0.18628806 +
                          t * (0.27886807 +
                               t * (-1.13520398 +
                                    t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const float erfc = t * exp(-z * z + poly);
  return x >= 0.0 ? 1.0 - erfc : erfc - 1.0;
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) {
    const float u = x[i];
    if (p.relu != 0u)
      x[i] = u > 0.0 ? u : (isnan(u) ? u : 0.0);
    else
      x[i] = 0.5 * u * (1.0 + erfApprox(u * 0.70710678118654752));
  }
}
