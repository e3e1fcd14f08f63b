// Y[r][i] = Σ_k A[i][k]·X[r][k] + bias[i] (A is m × n row-major): a workgroup computes a
// TILE × TILE block of Y (x: matrix rows i, y: batch rows r), staging TILE-wide slabs of X
// and A through shared memory so each value loaded from memory serves TILE outputs. Every
// output sums k in order (as the CPU twin does); padding adds exact zeros. Workgroups
// loop grid-stride over the tiles a capped grid does not reach.
#version 450
// TILE × TILE invocations, x and y both constant 0 (the size: core/gpu/workgroups.cpp).
layout(local_size_x_id = 0, local_size_y_id = 0) in;
layout(constant_id = 0) const uint TILE = 16;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer Bias { float bias[]; };
layout(std430, binding = 2) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint rows;  // batch rows
  uint m;     // outputs per row
  uint n;     // inputs per row
  uint hasBias;
};

// +1 column: threads reading a column of a tile hit different banks.
shared float xTile[TILE][TILE + 1];  // [batch row][k]
shared float aTile[TILE][TILE + 1];  // [matrix row][k]

void main() {
  const uint tx = gl_LocalInvocationID.x;
  const uint ty = gl_LocalInvocationID.y;
  const uint rowTiles = (rows + TILE - 1) / TILE;
  const uint colTiles = (m + TILE - 1) / TILE;
  // Loop bounds depend on the workgroup only, so every barrier() is in uniform control flow.
  for (uint rt = gl_WorkGroupID.y; rt < rowTiles; rt += gl_NumWorkGroups.y) {
    for (uint ct = gl_WorkGroupID.x; ct < colTiles; ct += gl_NumWorkGroups.x) {
      const uint r = rt * TILE + ty;  // this invocation's output
      const uint i = ct * TILE + tx;
      const uint aRow = ct * TILE + ty;  // the A row this invocation stages
      precise float sum = 0.0;  // rounded as the CPU twin's sum (see csr_matvec.comp)
      for (uint k0 = 0; k0 < n; k0 += TILE) {
        const uint k = k0 + tx;
        xTile[ty][tx] = (r < rows && k < n) ? x[r * n + k] : 0.0;
        aTile[ty][tx] = (aRow < m && k < n) ? a[aRow * n + k] : 0.0;
        barrier();
        for (uint kk = 0; kk < TILE; ++kk) sum += xTile[ty][kk] * aTile[tx][kk];
        barrier();
      }
      if (r < rows && i < m) y[r * m + i] = sum + (hasBias != 0u ? bias[i] : 0.0);
    }
  }
}
