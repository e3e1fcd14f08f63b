// minGRU (docs/spec/seed-models.md §3.2, "Were RNNs All We Needed?"): gates and candidate read the
// token only, so a layer is the linear recurrence of min_rnn_scan.h:
//   z_t = σ(k_t),  k_t = Linear_z(x_t)          update gate
//   ĥ_t = Linear_h(x_t)                          candidate pre-activation (no tanh)
//   h̃_t = ĥ_t (vanilla) or g(ĥ_t) (log variant, §3.4)
//   h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h̃_t      a_t = 1 − z_t, w_t = z_t
// with log(1 − z) = −softplus(k) and log z = −softplus(−k) (§3.4, never rounded first).
//
// The model around the cell (embedding, LayerNorm, projection back, read-out), its config
// keys, weights and common trace arrays are those of min_rnn_model.h, with the gate
// Linear "z" (the model type: MinGruModel, min_rnn_cell_model.h). Trace arrays of the cell,
// per layer: z_pre [T][d_h] (k), z [T][d_h].
//
//   MinRnnGates g = minGruGates(k, hPre, 2);     // the spec's M1: k, ĥ given, d_h = 2
//   auto h = minRnnSequential(g, MinRnnVariant::Vanilla, {0, 1});   // (0.5, −1.25), ...
//
//   MinGruModel model;                                         // default config, seed 0
//   Trace trace;
//   Sequence logits = model.run(model.taskInput("selective_copy", 3), &trace);  // [68][16]
//   trace.get("z");                                            // [68][8]
//   model.save("mingru.safetensors");  MinGruModel::load("mingru.safetensors");
#pragma once

#include <string>
#include <vector>

#include "core/seed_models/min_rnn_cell_model.h"

namespace lsrl::seed_models {

// The recurrence of one layer from k = Linear_z(x) and ĥ = Linear_h(x), each [T][width].
// Throws lsrl::Error for sizes that do not match.
MinRnnGates minGruGates(const std::vector<double>& k, const std::vector<double>& hPre, int width);
// The cell's trace arrays of one layer, named with `prefix`, from pre = {k, ĥ}.
void traceMinGruCell(Trace& trace, const std::string& prefix,
                     const std::vector<std::vector<double>>& pre, const MinRnnGates& gates);

}  // namespace lsrl::seed_models
