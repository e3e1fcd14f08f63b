// Lattice's recurrence (docs/spec/seed-models.md §1, core/seed_models/lattice_step.h latticeRecurrence) in
// fp32: one workgroup per (sequence, head) walks the steps [t0, t0 + count) of its tokens,
// the slots S (M×D, slot-major) in shared memory. Invocations stride over slots (per-slot dots and the
// slot's whole update, summed in the CPU reference's order) and over dimensions (the
// d-vectors Φk, S k and y = S q); barriers separate the phases of a step.
//
// Every mode of lattice_step.h (push constant `mode`, numbered as LatticeMode), variant and
// β form; with CHUNKED, §1.7's chunked approximation (nosr / osr): the drive comes from the
// frozen S_{t0}, `accum` holds S_{t0} + Σ (s̃_τ − S_{t0}) and S_t = φ(accum) (nosr).
//
// The host splits T over several dispatches (lavapipe stops a shader's loops after 65,535
// iterations over an invocation's lifetime, and real drivers' watchdogs end long
// dispatches): the first reads S_0 from `s0`, each later one the state the last left in
// `carry` — S_{t0−1}, and with CHUNKED the frozen S and the sum too — and every one leaves
// its state there. Items [firstItem, firstItem + items) are (sequence, head) pairs.
//
// Tokens arrive packed per head as [k (M), v (D), q (M), γ, μ] (the model's direct input).
// Outputs: y [b][t][H·D]; with `trace`, S_t [b][h][t][M][D] and per step the diagnostics
// [incoming (D), error (D), error (M), α (M), β (M), ‖s̃‖ (M), guarded (M)].
#version 450

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint LOCAL = 64;
layout(constant_id = 1) const uint M = 3;        // slots per head
layout(constant_id = 2) const uint D = 3;        // slot dimension
layout(constant_id = 3) const uint CHUNKED = 0;  // 1: chunk > 1 (frozen and accum are used)
layout(constant_id = 4) const uint CHUNK_MD = 1;  // frozen / accum's size: M·D when CHUNKED

layout(std430, binding = 0) readonly buffer TokenBuf { float tok[]; };  // [b][t][h][2M+D+2]
layout(std430, binding = 1) readonly buffer InitialBuf { float s0[]; };  // [h][M][D]
layout(std430, binding = 2) writeonly buffer OutBuf { float y[]; };     // [b][t][H·D]
layout(std430, binding = 3) writeonly buffer SlotBuf { float slots[]; };
layout(std430, binding = 4) writeonly buffer DiagBuf { float diag[]; };
layout(std430, binding = 5) buffer CarryBuf { float carry[]; };  // [b·H + h][CARRY]

// mode, variant (0 dec, 1 enc, 2 sim), closedForm (β), chunkNosr: the chunk's φ; this
// dispatch's steps [t0, t0 + count) and items [firstItem, firstItem + items).
layout(push_constant) uniform Push {
  uint batch, steps, heads, mode, variant, closedForm, chunk, chunkNosr, trace;
  float eps, lambda;
  uint t0, count, firstItem, items;
} p;

const uint NOSR = 0, OSR = 1, L1 = 2, OUTPUT_NORMALISED = 3, DELTA = 4, LINEAR_ATTENTION = 5,
           MAMBA2 = 6, GATED_DELTANET = 7;
const uint DEC = 0, ENC = 1, SIM = 2;
const uint MD = M * D;
const uint DIAG = 2 * D + 5 * M;
const uint CARRY = CHUNKED != 0 ? 3 * MD : MD;  // state, then frozen and accum

shared float state[MD];                       // S_t (S_{t−1} while a step runs)
shared float frozen[CHUNK_MD];                // S_{t0}
shared float accum[CHUNK_MD];                 // S_{t0} + Σ (s̃_τ − S_{t0})
shared float norm2[M];                        // s_iᵀs_i of the state the drive reads
shared float errM[M];                         // ENC's e
shared float h[D];                            // the incoming vector
shared float errD[D];                         // DEC / delta / output_normalised's e
shared float z[D];                            // S k
shared float zInfo[2];                        // output_normalised: ‖z‖², zᵀe

// The state the step's drive reads: S_{t−1}, or S_{t0} inside a chunk.
float prev(uint e) { return CHUNKED != 0 ? frozen[e] : state[e]; }

bool isOrthogonal() { return p.mode <= L1; }

// ‖s‖ guarded by ε (§1.5).
float guardedNorm(float n2) { return sqrt(max(n2, p.eps * p.eps)); }
bool isSmall(float n2) { return n2 < p.eps * p.eps; }

float softThreshold(float x, float tau) {
  const float mag = max(abs(x) - tau, 0.0);
  return x < 0.0 ? -mag : (x > 0.0 ? mag : x);
}

// The forget factor the update uses (lattice_step.cpp's Drive::mu).
float forget(float mu) {
  return (isOrthogonal() || p.mode == MAMBA2 || p.mode == GATED_DELTANET) ? mu : 1.0;
}

void main() {
  const uint id = gl_LocalInvocationID.x;
  const uint W = 2 * M + D + 2;
  const uint lastItem = min(p.firstItem + p.items, p.batch * p.heads);
  for (uint item = p.firstItem + gl_WorkGroupID.x; item < lastItem; item += gl_NumWorkGroups.x) {
    const uint bi = item / p.heads, head = item % p.heads;
    const uint at = item * CARRY;
    for (uint e = id; e < MD; e += LOCAL) {
      state[e] = p.t0 == 0 ? s0[head * MD + e] : carry[at + e];
      if (CHUNKED != 0 && p.t0 != 0) {  // a chunk that began before t0
        frozen[e] = carry[at + MD + e];
        accum[e] = carry[at + 2 * MD + e];
      }
    }
    barrier();
    for (uint t = p.t0; t < p.t0 + p.count; ++t) {
      const uint tk = ((bi * p.steps + t) * p.heads + head) * W;  // k at tk, v, q, γ, μ
      const uint kAt = tk, vAt = tk + M, qAt = tk + M + D;
      const float gamma = tok[tk + 2 * M + D], mu = forget(tok[tk + 2 * M + D + 1]);
      if (CHUNKED != 0 && t % p.chunk == 0) {
        for (uint e = id; e < MD; e += LOCAL) {
          frozen[e] = state[e];
          accum[e] = state[e];
        }
        barrier();
      }
      // Slot norms of the state the drive reads.
      for (uint i = id; i < M; i += LOCAL) {
        float n2 = 0.0;
        for (uint j = 0; j < D; ++j) n2 += prev(i * D + j) * prev(i * D + j);
        norm2[i] = n2;
        errM[i] = 0.0;
        if (isOrthogonal() && p.variant == ENC) {  // e_i = φ_iᵀ v − k_i
          float g = 0.0;
          for (uint j = 0; j < D; ++j) g += prev(i * D + j) * tok[vAt + j];
          errM[i] = g / guardedNorm(n2) - tok[kAt + i];
        }
      }
      barrier();
      // The incoming vector h (and the d-wide errors): DEC e = φ(S) k − v, ENC v, SIM −v;
      // the others from z = S k.
      for (uint j = id; j < D; j += LOCAL) {
        const bool dec = isOrthogonal() && p.variant == DEC;
        float sum = 0.0;
        if (dec || !isOrthogonal())
          for (uint i = 0; i < M; ++i) {
            const float w = dec ? tok[kAt + i] / guardedNorm(norm2[i]) : tok[kAt + i];
            sum += w * prev(i * D + j);
          }
        const float v = tok[vAt + j];
        float hj = v, ej = 0.0;
        if (dec) {
          ej = sum - v;
          hj = ej;
        } else if (isOrthogonal() && p.variant == SIM) {
          hj = -v;
        } else if (p.mode == DELTA || p.mode == GATED_DELTANET) {
          ej = sum - v;
          hj = v - mu * sum;
        }
        z[j] = sum;
        errD[j] = ej;
        h[j] = hj;
      }
      barrier();
      if (p.mode == OUTPUT_NORMALISED) {  // e = z/‖z‖ − v, h = P(z) e / ‖z‖
        if (id == 0) {
          float n2 = 0.0;
          for (uint j = 0; j < D; ++j) n2 += z[j] * z[j];
          float ze = 0.0;
          for (uint j = 0; j < D; ++j) {
            errD[j] = z[j] / guardedNorm(n2) - tok[vAt + j];
            ze += z[j] * errD[j];
          }
          zInfo[0] = n2;
          zInfo[1] = ze;
        }
        barrier();
        for (uint j = id; j < D; j += LOCAL) {
          const float n2 = zInfo[0];
          h[j] = isSmall(n2) ? errD[j] : (errD[j] - zInfo[1] / n2 * z[j]) / guardedNorm(n2);
        }
        barrier();
      }
      // Each slot's update from S_{t−1} (or S_{t0}): Δs_i = α_i · (P(s_i) h or h).
      for (uint i = id; i < M; i += LOCAL) {
        const float n2 = norm2[i], n = guardedNorm(n2);
        const bool small = isSmall(n2);
        float alpha;
        if (isOrthogonal()) {
          const float c = p.variant == ENC ? errM[i] : tok[kAt + i];
          alpha = small ? -gamma * c : -gamma * c / n;
        } else {
          const float k = tok[kAt + i];
          alpha = p.mode == DELTA || p.mode == GATED_DELTANET
                      ? gamma * k
                      : (p.mode == OUTPUT_NORMALISED ? -gamma * k : k);
        }
        float g = 0.0;
        for (uint j = 0; j < D; ++j) g += prev(i * D + j) * h[j];
        const float along = small ? 0.0 : g / n2;
        float pre2 = 0.0, ds2 = 0.0;
        for (uint j = 0; j < D; ++j) {
          const uint e = i * D + j;
          const float s = prev(e);
          const float ds = alpha * (isOrthogonal() ? h[j] - along * s : h[j]);
          const float tilde = mu * s + ds;
          pre2 += tilde * tilde;
          ds2 += ds * ds;
          if (CHUNKED != 0)
            accum[e] += tilde - s;
          else
            state[e] = tilde;
        }
        const float preNorm = sqrt(pre2);
        float beta = 1.0, guarded = small ? 1.0 : 0.0;
        if (CHUNKED != 0) {
          float a2 = 0.0;
          for (uint j = 0; j < D; ++j) a2 += accum[i * D + j] * accum[i * D + j];
          const float an = sqrt(a2);
          const bool scale = p.chunkNosr != 0 && an >= p.eps;
          if (scale) beta = 1.0 / an;
          for (uint j = 0; j < D; ++j)
            state[i * D + j] = scale ? accum[i * D + j] / an : accum[i * D + j];
        } else if (p.mode == NOSR) {
          if (preNorm < p.eps) {
            guarded = 1.0;  // s̃ = 0: nothing to normalise
          } else {
            const float dn = sqrt(ds2);
            beta = p.closedForm != 0 ? 1.0 / sqrt(mu * mu + dn * dn) : 1.0 / preNorm;
            for (uint j = 0; j < D; ++j) state[i * D + j] *= beta;
          }
        } else if (p.mode == L1) {
          for (uint j = 0; j < D; ++j)
            state[i * D + j] = softThreshold(state[i * D + j], gamma * p.lambda);
        }
        if (p.trace != 0) {
          const uint at = ((bi * p.heads + head) * p.steps + t) * DIAG + 2 * D;
          diag[at + M + i] = alpha;
          diag[at + 2 * M + i] = beta;
          diag[at + 3 * M + i] = preNorm;
          diag[at + 4 * M + i] = guarded;
          diag[at + i] = errM[i];
        }
      }
      barrier();
      // y_t = S_t q_t, and the trace.
      const uint row = (bi * p.steps + t) * p.heads + head;
      for (uint j = id; j < D; j += LOCAL) {
        float sum = 0.0;
        for (uint i = 0; i < M; ++i) sum += tok[qAt + i] * state[i * D + j];
        y[row * D + j] = sum;
      }
      if (p.trace != 0) {
        const uint step = (bi * p.heads + head) * p.steps + t;
        for (uint e = id; e < MD; e += LOCAL) slots[step * MD + e] = state[e];
        for (uint j = id; j < D; j += LOCAL) {
          diag[step * DIAG + j] = h[j];
          diag[step * DIAG + D + j] = errD[j];
        }
      }
      barrier();
    }
    // The state the next dispatch continues from.
    for (uint e = id; e < MD; e += LOCAL) {
      carry[at + e] = state[e];
      if (CHUNKED != 0) {
        carry[at + MD + e] = frozen[e];
        carry[at + 2 * MD + e] = accum[e];
      }
    }
    barrier();
  }
}
