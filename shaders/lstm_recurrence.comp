// One LSTM layer's sequential part with ReLU for every sigmoid and tanh
// (core/batch/gated_cells.h lstmRecurrence): gates i, f, g, o = relu(gi + gh),
//   c_t[j] = f·c_{t−1}[j] + i·g;  h_t[j] = o·relu(c_t[j])
// The cell c[j] never leaves the invocation that owns unit j.
#version 450
#extension GL_GOOGLE_include_directive : require
const uint GATES = 4;
#include "gated_cell.glsl"

layout(std430, binding = 7) readonly buffer CellInitialBuf { float c0[]; };

float cell[UNITS];

void startUnit(uint bi, uint k, uint j) { cell[k] = p.option != 0 ? c0[bi * p.hidden + j] : 0.0; }

float stepUnit(uint k, uint j, uint g, float hPrev) {
  const uint H = p.hidden;
  const float i = max(gi[g + j] + recurrent(j), 0.0);
  const float f = max(gi[g + H + j] + recurrent(H + j), 0.0);
  const float c = max(gi[g + 2 * H + j] + recurrent(2 * H + j), 0.0);
  const float o = max(gi[g + 3 * H + j] + recurrent(3 * H + j), 0.0);
  cell[k] = f * cell[k] + i * c;
  return o * max(cell[k], 0.0);
}
