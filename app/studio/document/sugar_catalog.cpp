// The sugar catalogue: descriptions and parameters of the sugar functions, and the
// scratch-graph construction that turns one call into an insertable fragment.
#include "app/studio/document/sugar_catalog.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "core/graph/builder.h"
#include "core/graph/checks.h"
#include "core/graph/node_reference.h"
#include "core/graph/sugar.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using Kind = SugarParamKind;

// A group parameter naming an operand inserted unwired from the palette, and one whose
// node was deleted before the file was written (Graph::compacted).
constexpr const char* kUnwiredOperand = "operand";
constexpr const char* kRemovedNode = "removed node";

bool namesNodeOperand(const std::string& value) {
  return value == kUnwiredOperand || value == kRemovedNode || parseNodeReference(value).has_value();
}

SugarParam widthParam() {
  return {"width", Kind::Width, "1", "Width of the node operands (every operand has this width)."};
}
SugarParam scaleParam() {
  return {"scale", Kind::Scalar, "1000",
          "Step steepness mu: values closer than 1/mu to the threshold are not decided."};
}
SugarParam largeConstantParam() {
  return {"large_constant", Kind::Scalar, "1e10",
          "lambda: larger than any value a branch takes, so that a closed branch is cut off."};
}
SugarParam operandParam(std::string name, std::string defaultText, std::string what) {
  return {std::move(name), Kind::Operand, std::move(defaultText),
          what + ": \"node\" leaves an input to wire, or a constant such as 0 or 1/2."};
}
SugarParam branchParam(std::string name, std::string what) {
  return {std::move(name), Kind::OptionalOperand, "node",
          what + ": \"node\" leaves an input to wire, a constant, or \"none\" to omit it."};
}
SugarParam nodeBranchParam(std::string name, std::string what) {
  return {std::move(name), Kind::OptionalNode, "node",
          what + ": \"node\" leaves an input to wire, or \"none\" to omit it."};
}

std::vector<SugarFunction> makeCatalog() {
  std::vector<SugarFunction> c;
  c.push_back({"f_step",
               "1 where z >= 1/scale, 0 where z <= 0, linear in between (per entry).",
               {widthParam(), scaleParam()}});
  c.push_back({"f_bump",
               "1 where lb <= z < ub (per entry), built from two steps.",
               {widthParam(), operandParam("lb", "0", "Lower bound"),
                operandParam("ub", "1", "Upper bound (a node if lb is a node)"), scaleParam()}});
  c.push_back({"f_larger",
               "1 where x > y, else 0 (per entry).",
               {widthParam(), operandParam("x", "node", "Left operand"),
                operandParam("y", "node", "Right operand"), scaleParam()}});
  c.push_back({"f_smaller",
               "1 where x < y, else 0 (per entry).",
               {widthParam(), operandParam("x", "node", "Left operand"),
                operandParam("y", "node", "Right operand"), scaleParam()}});
  c.push_back({"f_eq",
               "1 where x = y, else 0 (per entry).",
               {widthParam(), operandParam("x", "node", "Left operand"),
                operandParam("y", "node", "Right operand"), scaleParam()}});
  c.push_back({"f_neq",
               "1 where x != y, else 0 (per entry).",
               {widthParam(), operandParam("x", "node", "Left operand"),
                operandParam("y", "node", "Right operand"), scaleParam()}});
  c.push_back({"f_not", "1 - x for a Boolean x.", {widthParam()}});
  c.push_back({"f_and", "x AND y for Boolean x and y.", {widthParam(), scaleParam()}});
  c.push_back({"f_or", "x OR y for Boolean x and y.", {widthParam(), scaleParam()}});
  c.push_back({"f_ifelse",
               "t_val where the condition is 1, f_val where it is 0 (direct conditional, "
               "paper Eq. 7).",
               {widthParam(), branchParam("t_val", "Value if true"),
                branchParam("f_val", "Value if false"), largeConstantParam()}});
  c.push_back({"f_ifelse_step",
               "As f_ifelse, with the condition passed through a step first.",
               {widthParam(), branchParam("t_val", "Value if true"),
                branchParam("f_val", "Value if false"), largeConstantParam(), scaleParam()}});
  c.push_back({"f_ifelse_mul",
               "t_val where the condition is 1, f_val where it is 0 (multiplicative "
               "conditional, paper Eq. 10).",
               {widthParam(), nodeBranchParam("t_val", "Value if true"),
                nodeBranchParam("f_val", "Value if false")}});
  c.push_back({"f_ifeq",
               "t_val where x = y, f_val elsewhere.",
               {widthParam(), operandParam("x", "node", "Left operand"),
                operandParam("y", "node", "Right operand"), branchParam("t_val", "Value if equal"),
                branchParam("f_val", "Value if different"), scaleParam(), largeConstantParam()}});
  c.push_back({"f_modulo_counter",
               "The token position modulo n, from a rotating unit vector (a LinState).",
               {{"width", Kind::Width, "1", "Width of the (dummy) input node."},
                {"n", Kind::Count, "3", "The divisor n (the counter runs 0, 1, ..., n-1)."},
                scaleParam()}});
  c.push_back({"f_relu_identity",
               "x, computed as ReLU(x) - ReLU(-x) (passes values through a ReLU layer).",
               {widthParam()}});
  c.push_back({"f_constant",
               "A constant vector, whatever the input.",
               {{"width", Kind::Width, "1", "Width of the input node."},
                {"value", Kind::Vector, "0", "The constant, comma-separated: 1, 1/2, sqrt(2)."}}});
  return c;
}

std::string trimmed(const std::string& s) {
  size_t a = 0;
  size_t b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::optional<std::string> scalarError(const std::string& text) {
  try {
    Exact::parse(text);
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

// The comma-separated entries of a vector text, with optional surrounding brackets.
std::vector<std::string> vectorEntries(const std::string& text) {
  std::string body = trimmed(text);
  if (body.size() >= 2 && body.front() == '[' && body.back() == ']') {
    body = body.substr(1, body.size() - 2);
  }
  std::vector<std::string> entries;
  size_t start = 0;
  while (true) {
    const size_t comma = body.find(',', start);
    entries.push_back(trimmed(body.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return entries;
}

// "node" (an operand to wire) or "node N" (wired to node N).
bool isNodeText(const std::string& text) {
  return text == "node" || parseNodeReference(text).has_value();
}

std::optional<long long> positiveInteger(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return std::nullopt;
  }
  const long long v = std::stoll(text);
  if (v < 1) return std::nullopt;
  return v;
}

// The values of one call, validated against the function's parameters.
class CallArgs {
 public:
  CallArgs(const SugarFunction& fn, const SugarArgs& given) : fn_(fn) {
    for (const auto& [name, text] : given) {
      if (!findParam(name)) {
        std::string known;
        for (const SugarParam& p : fn.params) known += (known.empty() ? "" : ", ") + p.name;
        throw Error(fn.name + ": unknown parameter '" + name + "' (it takes " + known + ")");
      }
    }
    for (const SugarParam& p : fn.params) {
      const auto it = given.find(p.name);
      const std::string text = trimmed(it == given.end() ? p.defaultText : it->second);
      if (auto why = sugarParamError(p, text)) {
        throw Error(fn.name + ": parameter '" + p.name + "' = '" + text + "': " + *why);
      }
      values_[p.name] = text;
    }
  }

  const std::string& text(const std::string& name) const { return values_.at(name); }
  int integer(const std::string& name) const { return static_cast<int>(std::stoll(text(name))); }
  Exact scalar(const std::string& name) const { return Exact::parse(text(name)); }
  ExactVector vector(const std::string& name) const {
    ExactVector v;
    for (const std::string& e : vectorEntries(text(name))) v.push_back(Exact::parse(e));
    return v;
  }
  // "node" or "node N": an operand slot (wired to N once inserted).
  bool isNode(const std::string& name) const {
    return text(name) == "node" || parseNodeReference(text(name)).has_value();
  }
  std::optional<NodeId> boundNode(const std::string& name) const {
    return parseNodeReference(text(name));
  }
  bool isNone(const std::string& name) const { return text(name) == "none"; }

 private:
  const SugarParam* findParam(const std::string& name) const {
    for (const SugarParam& p : fn_.params) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

  const SugarFunction& fn_;
  std::map<std::string, std::string> values_;
};

// The scratch graph: placeholder Input nodes stand for the operands the user wires.
class Scratch {
 public:
  explicit Scratch(int width) : width_(width) {}

  Var placeholder(const std::string& operand) {
    Var v;
    if (g_.input() == kNoNode) {
      v = Input(g_, width_);
    } else {
      // A program has one Input; further placeholders are added as records.
      Node n;
      n.id = static_cast<NodeId>(g_.nodeCount());
      n.op = Op::Input;
      n.dim = width_;
      v = Var(&g_, g_.addUnchecked(std::move(n)));
    }
    operandOf_[v.id()] = operand;
    return v;
  }
  Operand operand(const CallArgs& args, const std::string& name) {
    if (args.isNode(name)) return nodeOperand(args, name);
    return args.scalar(name);
  }
  std::optional<Operand> branch(const CallArgs& args, const std::string& name) {
    if (args.isNone(name)) return std::nullopt;
    return operand(args, name);
  }
  std::optional<Var> nodeBranch(const CallArgs& args, const std::string& name) {
    if (args.isNone(name)) return std::nullopt;
    return nodeOperand(args, name);
  }

  // The sugar call's nodes and groups, renumbered, without the placeholders.
  SugarFragment extract() const {
    std::vector<NodeId> newId(g_.nodeCount(), kNoNode);
    NodeId next = 0;
    for (const Node& n : g_.nodes()) {
      if (!operandOf_.count(n.id)) newId[static_cast<size_t>(n.id)] = next++;
    }
    SugarFragment f;
    for (const Node& n : g_.nodes()) {
      if (operandOf_.count(n.id)) continue;
      Node copy = n;
      copy.id = newId[static_cast<size_t>(n.id)];
      for (size_t slot = 0; slot < copy.inputs.size(); ++slot) {
        const NodeId from = n.inputs[slot];
        if (auto it = operandOf_.find(from); it != operandOf_.end()) {
          f.slots.push_back({it->second, copy.id, static_cast<int>(slot)});
          if (auto bound = boundTo_.find(it->second); bound != boundTo_.end())
            f.wires.push_back({it->second, copy.id, static_cast<int>(slot), bound->second});
        }
        copy.inputs[slot] = newId[static_cast<size_t>(from)];
      }
      f.graph.addUnchecked(std::move(copy));
    }
    for (const Group& gr : g_.groups()) {
      Group copy = gr;
      copy.nodes.clear();
      for (NodeId id : gr.nodes) {
        if (newId[static_cast<size_t>(id)] != kNoNode) copy.nodes.push_back(newId[id]);
      }
      copy.output = gr.output == kNoNode ? kNoNode : newId[static_cast<size_t>(gr.output)];
      for (auto& [key, value] : copy.params) value = renumberedReference(value, newId);
      const GroupId id = f.graph.addGroupUnchecked(std::move(copy));
      if (gr.parent == kNoGroup && f.group == kNoGroup) f.group = id;
    }
    return f;
  }

 private:
  // A parameter that names a node ("node 12", from Operand::describe) follows the
  // renumbering; one that names a placeholder says the input is still to be wired.
  std::string renumberedReference(const std::string& value,
                                  const std::vector<NodeId>& newId) const {
    const auto reference = parseNodeReference(value);
    if (!reference) return value;
    const NodeId old = *reference;
    if (old < 0 || static_cast<size_t>(old) >= newId.size()) return value;
    if (operandOf_.count(old)) return kUnwiredOperand;  // the document sets "node N" when wired
    return nodeReferenceText(newId[static_cast<size_t>(old)]);
  }

  // A placeholder for an operand given as "node" or "node N" (remembered as a wire).
  Var nodeOperand(const CallArgs& args, const std::string& name) {
    if (const auto node = args.boundNode(name)) boundTo_[name] = *node;
    return placeholder(name);
  }

  Graph g_;
  int width_;
  std::map<NodeId, std::string> operandOf_;
  std::map<std::string, NodeId> boundTo_;  // operands given as "node N"
};

// Makes the call in the scratch graph.
void call(const std::string& fn, const CallArgs& a, Scratch& s) {
  if (fn == "f_step") {
    f_step(s.placeholder("z"), a.scalar("scale"));
  } else if (fn == "f_bump") {
    const Var z = s.placeholder("z");
    f_bump(z, s.operand(a, "lb"), s.operand(a, "ub"), a.scalar("scale"));
  } else if (fn == "f_larger" || fn == "f_smaller" || fn == "f_eq" || fn == "f_neq") {
    const Operand x = s.operand(a, "x");
    const Operand y = s.operand(a, "y");
    const Exact scale = a.scalar("scale");
    if (fn == "f_larger") f_larger(x, y, scale);
    if (fn == "f_smaller") f_smaller(x, y, scale);
    if (fn == "f_eq") f_eq(x, y, scale);
    if (fn == "f_neq") f_neq(x, y, scale);
  } else if (fn == "f_not") {
    f_not(s.placeholder("x"));
  } else if (fn == "f_and" || fn == "f_or") {
    const Var x = s.placeholder("x");
    const Var y = s.placeholder("y");
    if (fn == "f_and") f_and(x, y, a.scalar("scale"));
    if (fn == "f_or") f_or(x, y, a.scalar("scale"));
  } else if (fn == "f_ifelse" || fn == "f_ifelse_step") {
    const Var c = s.placeholder("condition");
    const auto t = s.branch(a, "t_val");
    const auto f = s.branch(a, "f_val");
    if (fn == "f_ifelse") f_ifelse(c, t, f, a.scalar("large_constant"));
    if (fn == "f_ifelse_step")
      f_ifelse_step(c, t, f, a.scalar("large_constant"), a.scalar("scale"));
  } else if (fn == "f_ifelse_mul") {
    const Var c = s.placeholder("condition");
    const auto t = s.nodeBranch(a, "t_val");
    const auto f = s.nodeBranch(a, "f_val");
    f_ifelse_mul(c, t, f);
  } else if (fn == "f_ifeq") {
    const Operand x = s.operand(a, "x");
    const Operand y = s.operand(a, "y");
    const auto t = s.branch(a, "t_val");
    const auto f = s.branch(a, "f_val");
    f_ifeq(x, y, t, f, a.scalar("scale"), a.scalar("large_constant"));
  } else if (fn == "f_modulo_counter") {
    f_modulo_counter(s.placeholder("dummy_input"), a.integer("n"), a.scalar("scale"));
  } else if (fn == "f_relu_identity") {
    f_relu_identity(s.placeholder("x"));
  } else if (fn == "f_constant") {
    f_constant(s.placeholder("input"), a.vector("value"));
  } else {
    throw Error("sugar catalogue: no construction for " + fn);
  }
}

}  // namespace

const std::vector<SugarFunction>& sugarCatalog() {
  static const std::vector<SugarFunction> catalog = makeCatalog();
  return catalog;
}

const SugarFunction* findSugarFunction(std::string_view name) {
  for (const SugarFunction& f : sugarCatalog()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::optional<std::string> sugarParamError(const SugarParam& param, const std::string& raw) {
  const std::string text = trimmed(raw);
  switch (param.kind) {
    case Kind::Width:
    case Kind::Count: {
      const auto v = positiveInteger(text);
      const long long most = param.kind == Kind::Width ? kMaxNodeDim : 2048;
      if (!v || *v > most) {
        return "expected a whole number from 1 to " + std::to_string(most) + ", got '" + text + "'";
      }
      return std::nullopt;
    }
    case Kind::Scalar:
      return scalarError(text);
    case Kind::Vector: {
      const auto entries = vectorEntries(text);
      for (size_t i = 0; i < entries.size(); ++i) {
        if (auto why = scalarError(entries[i])) {
          return "entry " + std::to_string(i + 1) + " ('" + entries[i] + "'): " + *why;
        }
      }
      return std::nullopt;
    }
    case Kind::Operand:
      if (isNodeText(text)) return std::nullopt;
      if (auto why = scalarError(text))
        return "expected \"node\", \"node N\" (node #N) or a constant: " + *why;
      return std::nullopt;
    case Kind::OptionalOperand:
      if (isNodeText(text) || text == "none") return std::nullopt;
      if (auto why = scalarError(text))
        return "expected \"node\", \"node N\" (node #N), \"none\" or a constant: " + *why;
      return std::nullopt;
    case Kind::OptionalNode:
      if (isNodeText(text) || text == "none") return std::nullopt;
      return "expected \"node\", \"node N\" (node #N) or \"none\", got '" + text + "'";
  }
  return std::nullopt;
}

SugarFragment buildSugarFragmentWithSlots(std::string_view name, const SugarArgs& args) {
  const SugarFunction* fn = findSugarFunction(name);
  if (!fn) {
    std::string known;
    for (const SugarFunction& f : sugarCatalog()) known += (known.empty() ? "" : ", ") + f.name;
    throw Error("unknown sugar function '" + std::string(name) + "' (known: " + known + ")");
  }
  const CallArgs callArgs(*fn, args);
  Scratch scratch(callArgs.integer("width"));
  call(fn->name, callArgs, scratch);
  return scratch.extract();
}

Graph buildSugarFragment(std::string_view name, const SugarArgs& args) {
  return buildSugarFragmentWithSlots(name, args).graph;
}

}  // namespace lsrl

namespace lsrl {

std::vector<OperandSlot> groupOperandSlots(const Graph& g, GroupId id) {
  if (!g.containsGroup(id)) return {};
  const Group& group = g.groups()[static_cast<size_t>(id)];
  const SugarFunction* fn = findSugarFunction(group.function);
  if (fn == nullptr) return {};
  SugarArgs args;
  for (const auto& [name, value] : group.params) {
    const bool known = std::any_of(fn->params.begin(), fn->params.end(),
                                   [&key = name](const SugarParam& p) { return p.name == key; });
    if (known) args[name] = namesNodeOperand(value) ? std::string("node") : value;
  }
  SugarFragment call;
  try {
    call = buildSugarFragmentWithSlots(group.function, args);
  } catch (const Error&) {
    return {};  // parameters the catalogue does not take (a program's own call)
  }
  std::vector<NodeId> members = group.nodes;
  std::sort(members.begin(), members.end());
  if (members.size() != call.graph.nodeCount()) return {};
  for (size_t i = 0; i < members.size(); ++i) {
    if (!g.contains(members[i]) || g.node(members[i]).op != call.graph.nodes()[i].op) return {};
  }
  std::vector<OperandSlot> slots;
  for (const OperandSlot& s : call.slots)
    slots.push_back({s.operand, members[static_cast<size_t>(s.node)], s.slot});
  return slots;
}

std::vector<std::pair<std::string, std::string>> paramsAsWired(const Graph& g, GroupId id) {
  if (!g.containsGroup(id)) return {};
  const Group& group = g.groups()[static_cast<size_t>(id)];
  auto text = [&g](NodeId n) {
    if (!g.contains(n)) return std::string("open");
    const std::string& name = g.node(n).name;
    return name.empty() ? "#" + std::to_string(n) : name;
  };
  // Whether `n`, from outside the group, feeds one of its members.
  auto feedsMember = [&](NodeId n) {
    if (std::find(group.nodes.begin(), group.nodes.end(), n) != group.nodes.end()) return false;
    return std::any_of(group.nodes.begin(), group.nodes.end(), [&](NodeId m) {
      if (!g.contains(m)) return false;
      const auto& in = g.node(m).inputs;
      return std::find(in.begin(), in.end(), n) != in.end();
    });
  };
  std::optional<std::vector<OperandSlot>> slots;  // built only when a reference is stale
  std::vector<std::pair<std::string, std::string>> shown;
  for (const auto& [name, value] : group.params) {
    if (!namesNodeOperand(value)) {
      shown.emplace_back(name, value);
      continue;
    }
    // A reference that still feeds the call is what is wired (the usual case: no rebuild).
    const auto reference = parseNodeReference(value);
    if (reference && g.contains(*reference) && feedsMember(*reference)) {
      shown.emplace_back(name, text(*reference));
      continue;
    }
    if (!slots) slots = groupOperandSlots(g, id);
    const auto slot =
        std::find_if(slots->begin(), slots->end(),
                     [&key = name](const OperandSlot& s) { return s.operand == key; });
    if (slot == slots->end()) {
      shown.emplace_back(name, value);  // a call the catalogue cannot rebuild: as stored
      continue;
    }
    const auto& inputs = g.node(slot->node).inputs;
    const bool inRange = slot->slot >= 0 && static_cast<size_t>(slot->slot) < inputs.size();
    shown.emplace_back(name, text(inRange ? inputs[static_cast<size_t>(slot->slot)] : kNoNode));
  }
  return shown;
}

}  // namespace lsrl
