// A margin certificate: whether a program's compiled weights answer right when run in
// float64 or fp32 on a declared input domain, by a bound on the rounding error of every
// node compared with the margin of every construct that decides something (a step's
// distance from its ramp, a conditional's closed gate, a counter's one-hot, the output's
// rounding to a token). It answers "certified for t ≤ T, inputs in [a, b]" or names the
// first construct whose margin the bound exceeds (docs/precision.md, "Margin certificate").
// The bound is a worst case: "not certified" does not mean the weights answer wrong (a
// register written once is bounded as if written at every step).
//
// The bound is computed on the program graph, whose group contracts know the values that
// decide, under a model of the compiled path: every chain of Linears between two
// non-linear nodes (ReLU, Multi, LinState, the output) is folded into one row, computed
// in the format with rounded coefficients. Such a row is exact when its coefficients
// and inputs are dyadic and every partial sum fits the format's significand (tokens,
// powers-of-two constants); otherwise it errs by at most (terms + 2)·u·Σ|terms|.
// ReLUs pass errors on unchanged (they are 1-Lipschitz); a step's two ReLUs cancel the
// error of their shared input where it saturates. Interval analysis of the compiled path
// itself cannot do this: it loses the correlation of a step's two ReLUs, and its bounds
// reach 10²¹ where the values stay below 10.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/precision/domain_analysis.h"
#include "core/precision/fit_constants.h"

namespace lsrl {

struct MarginCheck {
  std::string label;  // "f_step (node 17)", "output (node 979)"
  double error = 0;   // the bound on what decides it, in its own units
  double margin = 0;  // how much error it can take
  bool holds() const { return error < margin; }
};

struct Certificate {
  Precision format = Precision::Fp32;
  std::string domain;       // InputDomain::describe()
  bool safe = false;        // certified: every margin holds
  double outputError = 0;   // the bound at the output, after its last rounding
  double outputMargin = 0;  // half the output's grid step, or the tolerance
  bool outputOnGrid = false;
  // The first construct, in program order, whose margin is too small; none when safe.
  std::optional<MarginCheck> failing;
  // The construct with the least headroom (margin − error, relative to its margin).
  std::optional<MarginCheck> tightest;
  // Steps on continuous inputs: exact where their input keeps this far from the ramp.
  std::vector<std::string> conditions;
  int checks = 0;  // margins checked

  // "certified in fp32 for inputs in [0, 1] (whole numbers), t ≤ 160: output error ≤ 0 <
  // 0.5 (half a grid step)" or "not certified in fp32 …: f_step (node 55): error bound
  // 16.1 ≥ margin 0.999".
  std::string summary() const;
};

// `analysis` is analyseDomain(g, domain). Outputs on a grid (tokens) must stay within
// half a grid step; continuous ones within `tolerance`. Only Float64 and Fp32.
Certificate certifyPrecision(const Graph& g, const DomainAnalysis& analysis,
                             const InputDomain& domain, Precision format, double tolerance = 1e-3);

nlohmann::json certificateJson(const Certificate& c);

}  // namespace lsrl
