// minLSTM (docs/spec/seed-models.md §3.3): forget and input gates from the token only, normalised
// to sum to 1, so a layer is the linear recurrence of min_rnn_scan.h:
//   f_t = σ(p_t), p_t = Linear_f(x_t);   i_t = σ(k_t), k_t = Linear_i(x_t)
//   f'_t = f_t / (f_t + i_t),  i'_t = i_t / (f_t + i_t)            (f' + i' = 1)
//   ĥ_t = Linear_h(x_t);  h̃_t = ĥ_t (vanilla) or g(ĥ_t) (log variant, §3.4)
//   h_t = f'_t ⊙ h_{t−1} + i'_t ⊙ h̃_t                            a_t = f'_t, w_t = i'_t
// computed as §3.4 does, safe where both sigmoids underflow:
//   diff_t = softplus(−p_t) − softplus(−k_t),  log f'_t = −softplus(diff_t),
//   log i'_t = −softplus(−diff_t)    (Listing 10's order: the forget Linear first).
//
// The model around the cell is that of min_rnn_model.h with the gate Linears "f", "i" (the
// model type: MinLstmModel, min_rnn_cell_model.h).
// Trace arrays of the cell, per layer, each [T][d_h]: f_pre (p), i_pre (k), the raw gates
// f and i (σ of them), and the normalised ones f_prime (f') and i_prime (i') that the
// recurrence uses.
//
//   MinRnnGates g = minLstmGates(p, k, hPre, 2);   // the spec's M3: p, k, ĥ given
//   auto h = minRnnSequential(g, MinRnnVariant::Vanilla, {0, 1});   // (0.5, 0.25), ...
//
//   MinLstmModel model;                                        // default config, seed 0
//   Trace trace;
//   model.run(model.taskInput("selective_copy", 3), &trace);
//   trace.get("f_prime");                                      // [68][8]
#pragma once

#include <string>
#include <vector>

#include "core/seed_models/min_rnn_cell_model.h"

namespace lsrl::seed_models {

// The recurrence of one layer from p = Linear_f(x), k = Linear_i(x) and ĥ = Linear_h(x),
// each [T][width]. Throws lsrl::Error for sizes that do not match.
MinRnnGates minLstmGates(const std::vector<double>& p, const std::vector<double>& k,
                         const std::vector<double>& hPre, int width);
// The cell's trace arrays of one layer, named with `prefix`, from pre = {p, k, ĥ}.
void traceMinLstmCell(Trace& trace, const std::string& prefix,
                      const std::vector<std::vector<double>>& pre, const MinRnnGates& gates);

}  // namespace lsrl::seed_models
