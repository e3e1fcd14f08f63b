#include "core/precision/fit_constants.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/graph/sugar_replay.h"
#include "core/precision/exact_counter.h"
#include "core/precision/group_rebuild.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// The least power of two ≥ x, but not below 1 (a need of 0: a step whose input never
// exceeds 0, a gate of zeros). A smaller step scale μ would put a large shift 1/μ into
// the step's second ReLU, which fp32 rounds (docs/precision.md, margin certificate).
Exact fittedPowerOfTwo(const Exact& x) { return powerOfTwoAtLeast(std::max(x, Exact(1))); }

struct Choice {
  std::optional<Exact> least;  // none: some site is assumed
  std::string why;
  Exact value;
  std::string label;
  bool mixed = false;  // nested calls with different values: left as built
};

}  // namespace

std::string_view precisionName(Precision p) {
  switch (p) {
    case Precision::Exact:
      return "exact";
    case Precision::Float64:
      return "float64";
    case Precision::Fp32:
      return "fp32";
  }
  return "exact";
}

Precision parsePrecision(std::string_view name) {
  for (Precision p : {Precision::Exact, Precision::Float64, Precision::Fp32}) {
    if (precisionName(p) == name) return p;
  }
  throw Error("unknown precision \"" + std::string(name) + "\"; expected exact, float64 or fp32");
}

ConstantFit fitConstants(const Graph& g, const InputDomain& domain, Precision precision) {
  ConstantFit fit;
  fit.graph = g;
  const DomainAnalysis before = analyseDomain(g, domain);
  fit.assumptions = before.assumptions;
  if (precision == Precision::Exact) return fit;

  // One choice per (top-level call or primitive gate, constant): the largest need of its
  // sites.
  std::map<std::tuple<GroupId, NodeId, std::string>, Choice> choices;
  for (const ConstantSite& s : before.sites) {
    auto [it, fresh] = choices.try_emplace({s.topGroup, s.gateNode, s.param});
    Choice& c = it->second;
    if (fresh) {
      c.least = s.least;
      c.why = s.why;
      c.value = s.value;
      c.label = s.gateNode == kNoNode ? groupLabel(g, s.topGroup) : s.label;
      continue;
    }
    if (s.value != c.value) {
      c.least.reset();
      c.mixed = true;
      c.why = "its nested calls use different values";
    }
    if (!c.least) continue;
    if (!s.least) {
      c.least.reset();
      c.why = s.why;
    } else if (*s.least > *c.least) {
      c.least = s.least;
      c.why = s.why;
    }
  }

  std::map<GroupId, std::map<std::string, std::string>> newParams;
  for (const auto& [key, c] : choices) {
    const auto& [group, gateNode, param] = key;
    Exact to = c.value;
    if (!c.least) {
      // A step assumed to saturate may only get steeper: its outputs stay those of the
      // program wherever the program's own steps saturate.
      if (param == "scale" && !c.mixed) to = fittedPowerOfTwo(c.value);
    } else if (c.value < *c.least) {
      fit.kept.push_back(c.label + " " + param + " = " + c.value.toString() + " is below the " +
                         c.least->toString() + " its contract needs on this domain (" + c.why +
                         "): the program is not exact there as built, left as it is");
      continue;
    } else {
      // Twice the need where that fits: a closed gate then has a margin of λ/2, a
      // step's input stays at least half its distance from the ramp.
      const Exact guarded = fittedPowerOfTwo(Exact(2) * *c.least);
      const Exact bare = fittedPowerOfTwo(*c.least);
      to = guarded <= c.value ? guarded : bare <= c.value ? bare : c.value;
    }
    if (to == c.value) continue;
    fit.changes.push_back({group, gateNode, c.label, param, c.value, to, c.least, c.why});
    if (gateNode != kNoNode) {
      Node& gate = fit.graph.mutableNode(gateNode);  // −λ·I, checked by gateAt
      gate.A = ExactMatrix::identity(gate.dim, -to);
    } else {
      newParams[group][param] = to.toString();
    }
  }

  for (const auto& entry : newParams) {
    const GroupId top = entry.first;
    const auto& changed = entry.second;
    const Group& gr = fit.graph.groups()[static_cast<size_t>(top)];
    if (auto why = rebuildInPlace(fit.graph, top, withParams(gr.params, changed))) {
      fit.kept.push_back(groupLabel(g, top) + ": " + *why + "; its constants are left as built");
      std::erase_if(fit.changes, [top](const ConstantChange& c) {
        return c.gateNode == kNoNode && c.group == top;
      });
    }
  }

  // fp32 cannot hold a rotation counter's cosines: a one-hot shift register counts exactly.
  if (precision == Precision::Fp32) {
    for (const Group& gr : g.groups()) {
      if (gr.removed || gr.function != "f_modulo_counter") continue;
      const std::string label = groupLabel(g, gr.id);
      if (auto why = makeCounterExact(fit.graph, gr.id)) {
        fit.kept.push_back(label + ": " + *why + "; left as a rotation");
      } else {
        fit.rewritten.push_back(label + ": rotation by 2pi/" + *findParam(gr.params, "divisor") +
                                " replaced by a one-hot shift register (exact in fp32)");
      }
    }
  }

  // The proof: every contract that held as built holds on the result, with the same
  // assumptions.
  std::set<std::pair<GroupId, NodeId>> failedAsBuilt;
  for (const ConstantSite& s : before.sites) {
    if (s.least && s.value < *s.least) failedAsBuilt.insert({s.group, s.gateNode});
  }
  DomainAnalysis after = analyseDomain(fit.graph, domain);
  for (const ConstantSite& s : after.sites) {
    if (s.least && s.value < *s.least && !failedAsBuilt.count({s.group, s.gateNode}))
      throw Error("internal error: after fitting, " + s.label + " " + s.param + " = " +
                  s.value.toString() + " is below the " + s.least->toString() + " it needs (" +
                  s.why + ")");
  }
  if (after.assumptions.size() != before.assumptions.size())
    throw Error("internal error: fitting the constants changed what the analysis assumes");
  fit.analysis = std::move(after);
  return fit;
}

nlohmann::json constantFitJson(const ConstantFit& fit, const InputDomain& domain,
                               Precision precision) {
  nlohmann::json j;
  j["precision"] = std::string(precisionName(precision));
  nlohmann::json d;
  d["box"] = {domain.lo.toString(), domain.hi.toString()};
  d["grid"] = domain.grid ? nlohmann::json(Exact(*domain.grid).toString()) : nlohmann::json();
  d["horizon"] = domain.horizon;
  j["domain"] = d;
  j["exact_on"] =
      domain.describe() + (fit.assumptions.empty() ? ""
                                                   : ", where every step listed under \"assumes\" "
                                                     "saturates in the program as written");
  nlohmann::json changes = nlohmann::json::array();
  for (const ConstantChange& c : fit.changes) {
    nlohmann::json e;
    e["group"] = c.label;
    e["param"] = c.param;
    e["from"] = c.from.toString();
    e["to"] = c.to.toString();
    e["least"] = c.least ? nlohmann::json(c.least->toString()) : nlohmann::json();
    e["why"] = c.why;
    changes.push_back(std::move(e));
  }
  j["changes"] = std::move(changes);
  j["kept"] = fit.kept;
  j["rewritten"] = fit.rewritten;
  j["assumes"] = fit.assumptions;
  return j;
}

}  // namespace lsrl
