// The precision pass: replaces the "big" constants of a program's sugar (a step's scale
// μ, a conditional's λ) by the smallest powers of two that keep every construct's
// contract on the declared input domain (domain_analysis.h), so that the compiled
// weights give the exact model's answers when run in float64 or fp32. The outputs on
// the domain are unchanged: the analysis, run again on the result, proves that every
// contract still holds (docs/precision.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/precision/domain_analysis.h"

namespace lsrl {

// The arithmetic the weights will run in. Exact leaves the constants as built.
enum class Precision { Exact, Float64, Fp32 };
std::string_view precisionName(Precision p);  // "exact", "float64", "fp32"
// Throws lsrl::Error listing the names.
Precision parsePrecision(std::string_view name);

struct ConstantChange {
  GroupId group = kNoGroup;   // the top-level sugar call rebuilt
  NodeId gateNode = kNoNode;  // or the −λ·I Linear of a gate written with primitives
  std::string label;          // "f_ifelse (node 40)", "gate ReLU(...) (node 52)"
  std::string param;          // "scale" or "large_constant"
  Exact from;
  Exact to;
  std::optional<Exact> least;  // none: a step assumed to saturate (μ only grows)
  std::string why;
};

struct ConstantFit {
  Graph graph;
  std::vector<ConstantChange> changes;
  std::vector<std::string> kept;  // constants left as built, and why
  // Constructs rebuilt another way (fp32: rotation counters, exact_counter.h).
  std::vector<std::string> rewritten;
  std::vector<std::string> assumptions;  // steps assumed, not proved, to saturate
  DomainAnalysis analysis;  // of `graph` on the domain: the proof (and the certificate's input)
};

// Throws lsrl::Error when the result fails its own proof (a bug, never expected).
ConstantFit fitConstants(const Graph& g, const InputDomain& domain, Precision precision);

// The record for a model's metadata: precision, domain, every change with its reason,
// what was kept and what is assumed.
nlohmann::json constantFitJson(const ConstantFit& fit, const InputDomain& domain,
                               Precision precision);

}  // namespace lsrl
