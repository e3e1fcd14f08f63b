// Lattice's recurrence over a whole batch of sequences, fused, with its analytic backward:
// what the PyTorch twin (app/python/lsrl/torch/lattice.py) runs in training instead of ~120
// autograd ops per token. The math is the twin's `_Recurrence.step` (hence latticeStep's,
// docs/spec/seed-models.md §1.3–1.6) operation for operation, ε guards included, and the
// backward is the gradient autograd would give through it (a where() passes gradient only
// to the branch it picks; clamp and the guards' safe denominators likewise).
//
// Forms: nosr (dec, enc, sim; beta norm and closed_form), osr, delta, gated_deltanet,
// linear_attention, mamba2. Not fused (the twin keeps its PyTorch loop for them): l1,
// output_normalised, and the chunked approximation (chunk > 1). No diagnostics: a trace
// also runs the PyTorch loop.
//
// Buffers are contiguous, row-major, float or double:
//   s0 [B][H][m][d] (the slots of §1.1: slot i is s0[b][h][i])
//   k, q [B][T][H][m];  v, y [B][T][H][d];  gamma, mu [B][T][H]
//   states [B][H][T][m][d]: S_{t−1} before token t, what the backward recomputes from.
// Single-threaded; the caller splits work if it wants threads.
#pragma once

#include <cstdint>

#include "core/seed_models/lattice_step.h"

namespace lsrl::seed_models {

struct LatticeScanShape {
  int64_t batch = 0, tokens = 0, heads = 0;
  int m = 0, d = 0;
};

// The per-token inputs (read-only), each as laid out above.
template <class T>
struct LatticeScanInputs {
  const T *k = nullptr, *v = nullptr, *q = nullptr, *gamma = nullptr, *mu = nullptr;
};

// The gradients the backward writes (every element; sizes as the inputs'). `s0` is per
// sequence: a shared S_0 is the sum over the batch, the caller's to take. gamma or mu may
// be null where the caller does not need them (and the form ignores them anyway).
template <class T>
struct LatticeScanGrads {
  T *s0 = nullptr, *k = nullptr, *v = nullptr, *q = nullptr, *gamma = nullptr, *mu = nullptr;
};

// Whether the fused scan runs this form (see above).
bool latticeScanSupports(const LatticeOptions& opt);
// Whether the form reads γ / μ (their gradients are zero otherwise).
bool latticeScanUsesGamma(LatticeMode mode);
bool latticeScanUsesMu(LatticeMode mode);

// y for every token; with `states` (B·H·T·m·d elements) each S_{t−1} kept for the backward.
// lsrl::Error for a form latticeScanSupports refuses.
template <class T>
void latticeScanForward(const LatticeScanShape& shape, const LatticeOptions& opt, const T* s0,
                        const LatticeScanInputs<T>& in, T* y, T* states);

// The gradients of a loss L given dy = ∂L/∂y, from the forward's `states`.
template <class T>
void latticeScanBackward(const LatticeScanShape& shape, const LatticeOptions& opt, const T* states,
                         const LatticeScanInputs<T>& in, const T* dy,
                         const LatticeScanGrads<T>& grads);

}  // namespace lsrl::seed_models
