// Input generators for the looped transformer (docs/spec/seed-models.md §T4.1 at small sizes,
// plus the §5/§6.2 demos): each draws one sequence, deterministic per seed, as rows of
// `width` features (the model's d; unused channels are 0), with per-token targets and a
// readable text.
//
//   LoopedTaskParams p;                                       // small defaults
//   LoopedTaskSample s = loopedTask("sudoku", p, 32, 7);      // 16 cells [16][32]
//   s.text;                                                   // "1.3./...": 0 = blank
//   s.targets;                                                // the solution, per cell
//
// Tasks and their token features (channel: meaning):
//   random              N = tokens rows ~ N(0, 1) (the §5 demo 3); no targets.
//   contextual_mapping  §6.2 input L_1(z) = (z, z, 1, 0, 0): `tokens` distinct IDs from
//                       0..id_base−1 (needs tokens ≤ id_base, width ≥ 5); target: the
//                       sequence ID Σ_n z_(n) B^{N−n} (IDs sorted descending), every token.
//   sudoku              box² × box² grid (2: Shidoku 4×4, 3: the 81-cell Sudoku), row by row;
//                       a shuffled pattern solution with `sudoku_blanks` cells cleared
//                       (uniqueness of the solution is not checked). Features: one-hot digit
//                       0..n (0 = blank), one-hot row, one-hot column (3n + 1 channels).
//                       Target: the solution digit.
//   countdown           4 numbers in 1..99 and a target in 10..100 reachable by 3 steps of
//                       + − × ÷ (non-negative, exact division), then 15 blanks for the chain
//                       "a op b = c" × 3. Numbers are single tokens coded as a value (the
//                       spec's vocabulary does not fit small widths): [value/100, is_number,
//                       +, −, ×, ÷, =, blank] (8 channels). Target: the full output sequence
//                       per position (numbers as values, + − × ÷ = as −1 … −5).
//   edit_distance       strings A, B over 3–10 letters drawn from a–z, |A| = string_length;
//                       B random (p = 0.4, length n−3…n+2, at least 1) or A with 1–3 random
//                       edits. Sequence A | B. Features: one-hot letter a–z, separator,
//                       "in B" (28 channels). Target: the distance (insert 2, delete 2,
//                       replace 3), every token.
//   lcs                 two uniform random strings of string_length over 3–10 letters drawn
//                       from a–z (alphabet choice ours: the spec does not fix one), same
//                       features; target: the LCS length, every token.
//   icl_decision_tree   depth-4 tree on icl_dim inputs (split coordinates uniform, threshold 0
//                       as Garg et al., 16 leaves ~ N(0, 1)); prompt x_1, f(x_1), …, x_k,
//                       f(x_k), x_test with x ~ N(0, I). Features: x (icl_dim), y, is_x, is_y.
//                       Target: f(x) at the x tokens, NaN at the y tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

struct LoopedTaskParams {
  int tokens = 8;        // "task_tokens": random / contextual_mapping length
  int stringLength = 6;  // "task_string_length": edit_distance, lcs
  int sudokuBox = 2;     // "sudoku_box": 2 or 3
  int sudokuBlanks = 8;  // "sudoku_blanks"
  int iclDim = 5;        // "icl_dim"
  int iclPoints = 10;    // "icl_points": (x, f(x)) pairs before x_test
  int idBase = 8;        // "id_base": B of contextual_mapping
};

struct LoopedTaskSample {
  Sequence input;               // [N][width]
  std::vector<double> targets;  // per token; empty when the task has none
  std::string text;             // readable form
};

// "random" first (the model's default task), then the others above.
std::vector<std::string> loopedTaskNames();
// Channels the task needs (its sequences are then zero-padded to `width`).
int loopedTaskWidth(const std::string& task, const LoopedTaskParams& p);
// Throws lsrl::Error for an unknown task, a width below loopedTaskWidth or bad params.
LoopedTaskSample loopedTask(const std::string& task, const LoopedTaskParams& p, int width,
                            uint64_t seed);

// The tasks' answers, for tests and targets.
int editDistance(const std::string& a, const std::string& b);  // insert 2, delete 2, replace 3
int lcsLength(const std::string& a, const std::string& b);

}  // namespace lsrl::seed_models
