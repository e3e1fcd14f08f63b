#include "core/precision/fit_constants.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/graph/node_reference.h"
#include "core/graph/sugar_replay.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// The least power of two ≥ x, but not below 2⁻³⁰ (a need of 0: a step whose input never
// exceeds 0, a gate of zeros).
Exact fittedPowerOfTwo(const Exact& x) {
  return powerOfTwoAtLeast(std::max(x, Exact::rational(1, 1 << 30)));
}

// What a sugar call builds from `params`, in a scratch graph whose Input nodes stand
// for the call's node operands.
struct Rebuilt {
  Graph scratch;
  std::map<NodeId, NodeId> operandOf;  // scratch placeholder -> the operand in the program
  std::vector<NodeId> nodes;           // the call's nodes, in creation order
};

Rebuilt rebuild(const Graph& g, const Group& gr, const SugarParams& params) {
  Rebuilt r;
  std::map<NodeId, NodeId> placeholderOf;
  for (const auto& [key, value] : params) {
    const auto id = parseNodeReference(value);
    if (!id || placeholderOf.count(*id)) continue;
    if (!g.contains(*id)) throw Error("it names " + value + ", which does not exist");
    Node n;
    n.id = static_cast<NodeId>(r.scratch.nodeCount());
    n.op = Op::Input;
    n.dim = g.node(*id).dim;
    const NodeId placeholder = r.scratch.addUnchecked(std::move(n));
    placeholderOf[*id] = placeholder;
    r.operandOf[placeholder] = *id;
  }
  replaySugar(r.scratch, gr.function, params,
              [&](NodeId id) { return Var(&r.scratch, placeholderOf.at(id)); });
  for (const Node& n : r.scratch.nodes()) {
    if (!r.operandOf.count(n.id)) r.nodes.push_back(n.id);
  }
  return r;
}

bool sameValues(const Node& a, const Node& b) {
  return a.A == b.A && a.B == b.B && a.b == b.b && a.init == b.init && a.bias == b.bias;
}

// The groups of a call: the group and every group nested in it, in id order.
std::vector<GroupId> callGroups(const Graph& g, GroupId top) {
  std::vector<GroupId> ids;
  for (const Group& gr : g.groups()) {
    GroupId p = gr.id;
    while (p != kNoGroup && p != top) p = g.groups()[static_cast<size_t>(p)].parent;
    if (p == top && !gr.removed) ids.push_back(gr.id);
  }
  return ids;
}

std::vector<NodeId> sortedNodes(const Group& gr) {
  std::vector<NodeId> nodes = gr.nodes;
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// Each scratch node's counterpart in the program: placeholders their operands, the call's
// nodes the group's, in creation order (`old`: sortedNodes, of the same size).
std::map<NodeId, NodeId> programIds(const Rebuilt& r, const std::vector<NodeId>& old) {
  std::map<NodeId, NodeId> id = r.operandOf;
  for (size_t i = 0; i < old.size(); ++i) id[r.nodes[i]] = old[i];
  return id;
}

// Checks that `r` has the shape of the group's nodes (same ops, widths and wiring) and,
// with `sameAsBuilt`, the same values; returns the reason when it does not.
std::optional<std::string> mismatch(const Graph& g, const Group& gr, const Rebuilt& r,
                                    bool sameAsBuilt) {
  const std::vector<NodeId> old = sortedNodes(gr);
  if (old.size() != r.nodes.size())
    return "it has " + std::to_string(old.size()) + " nodes where " + gr.function + " builds " +
           std::to_string(r.nodes.size());
  const std::map<NodeId, NodeId> oldOf = programIds(r, old);
  for (size_t i = 0; i < old.size(); ++i) {
    const Node& a = g.node(old[i]);
    const Node& b = r.scratch.node(r.nodes[i]);
    bool same =
        a.op == b.op && a.dim == b.dim && a.slice == b.slice && a.inputs.size() == b.inputs.size();
    for (size_t k = 0; same && k < a.inputs.size(); ++k)
      same = a.inputs[k] == oldOf.at(b.inputs[k]);
    if (!same) return "node " + std::to_string(a.id) + " is not what " + gr.function + " builds";
    if (sameAsBuilt && !sameValues(a, b))
      return "node " + std::to_string(a.id) + " holds other values than " + gr.function +
             " builds from its parameters";
  }
  return std::nullopt;
}

// Rebuilds the top-level call `top` with `params` in place: its nodes get the new
// values, its groups the new parameters. Returns why not when the group is not what its
// function builds (edited by hand) and changes nothing then.
std::optional<std::string> rebuildInPlace(Graph& g, GroupId top, const SugarParams& params) {
  const Group& gr = g.groups()[static_cast<size_t>(top)];
  try {
    if (auto why = mismatch(g, gr, rebuild(g, gr, gr.params), true)) return why;
  } catch (const Error& e) {
    return std::string("it cannot be rebuilt from its parameters: ") + e.what();
  }
  const Rebuilt r = rebuild(g, gr, params);
  if (auto why = mismatch(g, gr, r, false)) return why;
  const std::vector<GroupId> ours = callGroups(g, top);
  const std::vector<Group>& theirs = r.scratch.groups();
  if (ours.size() != theirs.size()) return "its nested calls differ from what it builds";
  // Every check has passed: only now is the program changed.
  const std::vector<NodeId> old = sortedNodes(gr);
  for (size_t i = 0; i < old.size(); ++i) {
    Node& a = g.mutableNode(old[i]);
    const Node& b = r.scratch.node(r.nodes[i]);
    a.A = b.A;
    a.B = b.B;
    a.b = b.b;
    a.init = b.init;
    a.bias = b.bias;
  }
  // The scratch's parameters name scratch nodes: renamed to the program's.
  const std::map<NodeId, NodeId> programId = programIds(r, old);
  for (size_t i = 0; i < ours.size(); ++i) {
    SugarParams params = theirs[i].params;
    for (auto& [key, value] : params) {
      if (const auto id = parseNodeReference(value)) value = nodeReferenceText(programId.at(*id));
    }
    g.mutableGroup(ours[i]).params = std::move(params);
  }
  return std::nullopt;
}

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

  // The proof: every contract that held as built holds on the result, with the same
  // assumptions.
  std::set<std::pair<GroupId, NodeId>> failedAsBuilt;
  for (const ConstantSite& s : before.sites) {
    if (s.least && s.value < *s.least) failedAsBuilt.insert({s.group, s.gateNode});
  }
  const DomainAnalysis after = analyseDomain(fit.graph, domain);
  for (const ConstantSite& s : after.sites) {
    if (s.least && s.value < *s.least && !failedAsBuilt.count({s.group, s.gateNode}))
      throw Error("internal error: after fitting, " + s.label + " " + s.param + " = " +
                  s.value.toString() + " is below the " + s.least->toString() + " it needs (" +
                  s.why + ")");
  }
  if (after.assumptions.size() != before.assumptions.size())
    throw Error("internal error: fitting the constants changed what the analysis assumes");
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
  j["assumes"] = fit.assumptions;
  return j;
}

}  // namespace lsrl
