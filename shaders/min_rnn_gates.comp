// minGRU / minLSTM gates (core/gpu/min_rnn_device.h): from the pre-activations of the
// cell's Linears, per entry n of [b][t][unit], the leaves of h_t = a_t ⊙ h_{t−1} + b_t:
//   minGRU   z = σ(k), a = 1 − z = σ(−k) (not 1 − z: no cancellation), w = z
//   minLSTM  f = σ(p), i = σ(k), f' = f/(f + i) = σ(−diff), i' = i/(f + i) = σ(diff) with
//            diff = softplus(−p) − softplus(−k) = log(i/f) (finite where both σ underflow)
//   h̃ = ĥ (vanilla) or g(ĥ) (log variant: x + 0.5 for x ≥ 0, σ(x) below), b = w · h̃.
// With `trace`, also h̃ and the gate arrays (minGRU: z; minLSTM: f, i, f', i'; each
// `count` long, one after the other). Invocations loop grid-stride over what a capped
// grid does not reach.
#version 450
layout(local_size_x_id = 0) in;  // the size: core/gpu/workgroups.cpp
layout(constant_id = 1) const uint kLstm = 0;        // 0: minGRU, 1: minLSTM
layout(constant_id = 2) const uint kLogVariant = 0;  // 1: h̃ = g(ĥ)
// The Linears' pre-activations, each `count` long: minGRU k, ĥ; minLSTM p, k, ĥ.
layout(std430, binding = 0) readonly buffer PreBuf { float pre[]; };
layout(std430, binding = 1) writeonly buffer ABuf { float a[]; };
layout(std430, binding = 2) writeonly buffer BBuf { float b[]; };
layout(std430, binding = 3) writeonly buffer CandidateBuf { float candidate[]; };
layout(std430, binding = 4) writeonly buffer GateBuf { float gates[]; };
layout(push_constant) uniform Push {
  uint count;  // B·T·d_h
  uint trace;
} p;

// Both branches take exp of a non-positive number: never overflows.
float sigmoid(float x) {
  if (x >= 0.0) return 1.0 / (1.0 + exp(-x));
  const float e = exp(x);
  return e / (1.0 + e);
}

// log(1 + e^−|x|) loses e^−|x| below fp32's ulp of 1: an absolute error under 6e-8.
float softplus(float x) { return max(x, 0.0) + log(1.0 + exp(-abs(x))); }

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint n = p.count;
  for (uint e = gl_GlobalInvocationID.x; e < n; e += stride) {
    const float hPre = pre[(kLstm + 1) * n + e];
    const float hTilde = kLogVariant != 0 ? (hPre >= 0.0 ? hPre + 0.5 : sigmoid(hPre)) : hPre;
    float keep, write;  // a_t and w_t
    if (kLstm == 0) {
      const float k = pre[e];
      keep = sigmoid(-k);
      write = sigmoid(k);
      if (p.trace != 0) gates[e] = write;
    } else {
      const float pf = pre[e], k = pre[n + e];
      const float diff = softplus(-pf) - softplus(-k);
      keep = sigmoid(-diff);
      write = sigmoid(diff);
      if (p.trace != 0) {
        gates[e] = sigmoid(pf);
        gates[n + e] = sigmoid(k);
        gates[2 * n + e] = keep;
        gates[3 * n + e] = write;
      }
    }
    a[e] = keep;
    b[e] = write * hTilde;
    if (p.trace != 0) candidate[e] = hTilde;
  }
}
