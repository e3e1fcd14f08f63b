// The walk shared by gru_recurrence.comp and lstm_recurrence.comp (modelled on
// recurrence_csr.comp): one workgroup per sequence runs a chunk of steps per dispatch
// (several dispatches cover T, each starting from the h_{t0−1} the last wrote), the state
// h_{t−1} in shared memory. Each invocation owns UNITS whole units j = id + k·LOCAL,
// so it reads that unit's gate rows j, H + j, 2H + j (, 3H + j) itself and keeps per-unit
// state (the LSTM cell) in its registers; barriers separate reading h_{t−1} from
// overwriting it with h_t.
//
// The including shader sets GATES and defines startUnit (a chunk begins), stepUnit
// (returns h_t[j] from the gate inputs at gi[g …], g = the row's first gate input) and
// finishUnit (a chunk ends: per-unit state the next chunk needs goes to memory).
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint LOCAL = 256;  // invocations per workgroup
layout(constant_id = 1) const uint UNITS = 1;    // units per invocation: LOCAL·UNITS ≥ H
layout(std430, binding = 0) readonly buffer RowPtrBuf { uint rowPtr[]; };  // W_hh, GATES·H × H
layout(std430, binding = 1) readonly buffer ColBuf { uint col[]; };
layout(std430, binding = 2) readonly buffer ValBuf { float val[]; };
layout(std430, binding = 3) readonly buffer BiasBuf { float bhh[]; };
layout(std430, binding = 4) readonly buffer GateInputBuf { float gi[]; };  // [b][t][GATES·H]
layout(std430, binding = 5) readonly buffer InitialBuf { float h0[]; };
layout(std430, binding = 6) buffer StateBuf { float h[]; };  // read back at a chunk's start
// option: the GRU's update rule (0 pytorch, 1 paper); the LSTM's "c0 given". This dispatch
// runs steps [t0, t0 + count) (kernel_support.h's stepsPerDispatch).
layout(push_constant) uniform Push { uint batch, steps, hidden, hasH0, option, t0, count; } p;

shared float state[LOCAL * UNITS];

// gh[r] = bhh[r] + W_hh[r]·h_{t−1}: the bias first, then the products in CSR order, as the
// CPU twin (and sparse_ops::affine) sums them.
float recurrent(uint r) {
  precise float sum = bhh[r];  // rounded as the CPU twin's sum (see csr_matvec.comp)
  for (uint i = rowPtr[r]; i < rowPtr[r + 1]; ++i) sum += val[i] * state[col[i]];
  return sum;
}

void startUnit(uint bi, uint k, uint j);
float stepUnit(uint k, uint j, uint g, float hPrev);
void finishUnit(uint bi, uint k, uint j);

void main() {
  const uint id = gl_LocalInvocationID.x;
  const uint H = p.hidden;
  for (uint bi = gl_WorkGroupID.x; bi < p.batch; bi += gl_NumWorkGroups.x) {
    for (uint k = 0; k < UNITS; ++k) {
      const uint j = id + k * LOCAL;
      if (j >= H) break;
      state[j] = p.t0 > 0        ? h[(bi * p.steps + p.t0 - 1) * H + j]
                 : p.hasH0 != 0 ? h0[bi * H + j]
                                : 0.0;
      startUnit(bi, k, j);
    }
    barrier();
    for (uint t = p.t0; t < p.t0 + p.count; ++t) {
      const uint row = bi * p.steps + t;
      float next[UNITS];
      for (uint k = 0; k < UNITS; ++k) {
        const uint j = id + k * LOCAL;
        if (j >= H) break;
        next[k] = stepUnit(k, j, row * GATES * H, state[j]);
        h[row * H + j] = next[k];
      }
      barrier();
      for (uint k = 0; k < UNITS; ++k) {
        const uint j = id + k * LOCAL;
        if (j < H) state[j] = next[k];
      }
      barrier();
    }
    for (uint k = 0; k < UNITS; ++k) {
      const uint j = id + k * LOCAL;
      if (j < H) finishUnit(bi, k, j);
    }
  }
}
