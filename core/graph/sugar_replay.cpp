#include "core/graph/sugar_replay.h"

#include <optional>

#include "core/graph/node_reference.h"
#include "core/graph/sugar.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// The recorded parameters of one call, read on demand.
class Recorded {
 public:
  Recorded(Graph& g, const std::string& function, const SugarParams& params,
           const std::function<Var(NodeId)>& nodeFor)
      : g_(g), function_(function), params_(params), nodeFor_(nodeFor) {}

  const std::string& text(const std::string& key) const {
    if (const std::string* value = findParam(params_, key)) return *value;
    throw Error(function_ + ": the group records no parameter '" + key + "'");
  }
  Var node(const std::string& key) const {
    const auto id = parseNodeReference(text(key));
    if (!id)
      throw Error(function_ + ": parameter '" + key + "' = '" + text(key) + "' is not a node");
    const Var v = nodeFor_(*id);
    if (!v.valid() || &v.graph() != &g_)
      throw Error(function_ + ": parameter '" + key + "' names node " + std::to_string(*id) +
                  ", which has no counterpart");
    return v;
  }
  Operand operand(const std::string& key) const {
    if (parseNodeReference(text(key))) return node(key);
    return scalar(key);
  }
  std::optional<Operand> branch(const std::string& key) const {
    if (text(key) == "none") return std::nullopt;
    return operand(key);
  }
  std::optional<Var> nodeBranch(const std::string& key) const {
    if (text(key) == "none") return std::nullopt;
    return node(key);
  }
  Exact scalar(const std::string& key) const {
    try {
      return Exact::parse(text(key));
    } catch (const Error& e) {
      throw Error(function_ + ": parameter '" + key + "' = '" + text(key) + "': " + e.what());
    }
  }
  int integer(const std::string& key) const {
    const Exact v = scalar(key);
    if (!v.isInteger() || v < Exact(0) || v > Exact(1 << 20))
      throw Error(function_ + ": parameter '" + key + "' = '" + text(key) +
                  "' is not a whole number in 0..2^20");
    return static_cast<int>(v.toRational().get_num().get_si());
  }
  // "[a, b, c]" as sugar.cpp writes a vector.
  ExactVector vector(const std::string& key) const {
    std::string s = text(key);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']')
      throw Error(function_ + ": parameter '" + key + "' = '" + s + "' is not a [..] vector");
    s = s.substr(1, s.size() - 2);
    ExactVector v;
    size_t start = 0;
    while (start <= s.size()) {
      const size_t comma = s.find(',', start);
      const std::string entry = s.substr(start, comma == std::string::npos ? comma : comma - start);
      try {
        v.push_back(Exact::parse(entry));
      } catch (const Error& e) {
        throw Error(function_ + ": parameter '" + key + "' entry '" + entry + "': " + e.what());
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return v;
  }

 private:
  Graph& g_;
  const std::string& function_;
  const SugarParams& params_;
  const std::function<Var(NodeId)>& nodeFor_;
};

}  // namespace

Var replaySugar(Graph& g, const std::string& fn, const SugarParams& params,
                const std::function<Var(NodeId)>& nodeFor) {
  const Recorded r(g, fn, params, nodeFor);
  if (fn == "f_constant") return f_constant(r.node("input"), r.vector("value"));
  if (fn == "f_step") return f_step(r.node("input"), r.scalar("scale"));
  if (fn == "f_bump")
    return f_bump(r.node("input"), r.operand("lb"), r.operand("ub"), r.scalar("scale"));
  if (fn == "f_larger") return f_larger(r.operand("x"), r.operand("y"), r.scalar("scale"));
  if (fn == "f_smaller") return f_smaller(r.operand("x"), r.operand("y"), r.scalar("scale"));
  if (fn == "f_eq") return f_eq(r.operand("x"), r.operand("y"), r.scalar("scale"));
  if (fn == "f_neq") return f_neq(r.operand("x"), r.operand("y"), r.scalar("scale"));
  if (fn == "f_not") return f_not(r.node("x"));
  if (fn == "f_and") return f_and(r.node("x"), r.node("y"), r.scalar("scale"));
  if (fn == "f_or") return f_or(r.node("x"), r.node("y"), r.scalar("scale"));
  if (fn == "f_ifelse")
    return f_ifelse(r.node("condition"), r.branch("t_val"), r.branch("f_val"),
                    r.scalar("large_constant"));
  if (fn == "f_ifelse_step")
    return f_ifelse_step(r.node("condition"), r.branch("t_val"), r.branch("f_val"),
                         r.scalar("large_constant"), r.scalar("scale"));
  if (fn == "f_ifelse_mul")
    return f_ifelse_mul(r.node("condition"), r.nodeBranch("t_val"), r.nodeBranch("f_val"));
  if (fn == "f_ifeq")
    return f_ifeq(r.operand("x"), r.operand("y"), r.branch("t_val"), r.branch("f_val"),
                  r.scalar("scale"), r.scalar("large_constant"));
  if (fn == "f_modulo_counter")
    return f_modulo_counter(r.node("dummy_input"), r.integer("divisor"), r.scalar("scale"));
  if (fn == "f_relu_identity") return f_relu_identity(r.node("x"));
  throw Error("no sugar function called '" + fn + "' to rebuild");
}

const std::string* findParam(const SugarParams& params, const std::string& key) {
  for (const auto& [name, value] : params) {
    if (name == key) return &value;
  }
  return nullptr;
}

SugarParams withParams(SugarParams params, const std::map<std::string, std::string>& changed) {
  for (const auto& [key, value] : changed) {
    bool found = false;
    for (auto& [name, text] : params) {
      if (name == key) {
        text = value;
        found = true;
      }
    }
    if (!found) throw Error("no parameter '" + key + "' to change");
  }
  return params;
}

}  // namespace lsrl
