// One LSTM layer's sequential part with ReLU for every sigmoid and tanh
// (core/float_batch/gated_cells.h lstmRecurrence): gates i, f, g, o = relu(gi + gh),
//   c_t[j] = f·c_{t−1}[j] + i·g;  h_t[j] = o·relu(c_t[j])
// The cell c[j] stays in the registers of the invocation that owns unit j, and goes to
// memory only between chunks of steps.
#version 450
#extension GL_GOOGLE_include_directive : require
const uint GATES = 4;
#include "gated_cell.glsl"

layout(std430, binding = 7) readonly buffer CellInitialBuf { float c0[]; };
// The cells between chunks of steps, [b][H].
layout(std430, binding = 8) buffer CellCarryBuf { float cellCarry[]; };

float cell[UNITS];

void startUnit(uint bi, uint k, uint j) {
  const uint at = bi * p.hidden + j;
  cell[k] = p.t0 > 0 ? cellCarry[at] : p.option != 0 ? c0[at] : 0.0;
}

void finishUnit(uint bi, uint k, uint j) { cellCarry[bi * p.hidden + j] = cell[k]; }

float stepUnit(uint k, uint j, uint g, float hPrev) {
  const uint H = p.hidden;
  const float i = max(gi[g + j] + recurrent(j), 0.0);
  const float f = max(gi[g + H + j] + recurrent(H + j), 0.0);
  const float c = max(gi[g + 2 * H + j] + recurrent(2 * H + j), 0.0);
  const float o = max(gi[g + 3 * H + j] + recurrent(3 * H + j), 0.0);
  precise const float next = f * cell[k] + i * c;  // rounded as the twin (no fused ·+)
  cell[k] = next;
  return o * max(cell[k], 0.0);
}
