// One GRU layer's sequential part with ReLU gates (core/float_batch/gated_cells.h gruRecurrence):
//   r = relu(gi[j] + gh[j]);  z = relu(gi[H+j] + gh[H+j]);  n = relu(gi[2H+j] + r·gh[2H+j])
//   pytorch: h_t[j] = (1 − z)·n + z·h_{t−1}[j];  paper: h_t[j] = (1 − z)·h_{t−1}[j] + z·n
#version 450
#extension GL_GOOGLE_include_directive : require
const uint GATES = 3;
#include "gated_cell.glsl"

void startUnit(uint bi, uint k, uint j) {}
void finishUnit(uint bi, uint k, uint j) {}

float stepUnit(uint k, uint j, uint g, float hPrev) {
  const uint H = p.hidden;
  const float r = max(gi[g + j] + recurrent(j), 0.0);
  const float z = max(gi[g + H + j] + recurrent(H + j), 0.0);
  precise const float nIn = gi[g + 2 * H + j] + r * recurrent(2 * H + j);  // no fused ·+
  const float n = max(nIn, 0.0);
  precise const float h = p.option == 0 ? (1.0 - z) * n + z * hPrev : (1.0 - z) * hPrev + z * n;
  return h;
}
