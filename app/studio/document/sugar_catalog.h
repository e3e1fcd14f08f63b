// The palette's catalogue of sugar functions (core/graph/sugar.h): what each one is
// called, what it does, which parameters it takes (with defaults in the scalar grammar),
// and how to build it as a graph fragment whose operands are left unconnected, ready to
// be inserted into a document and wired by the user. Qt-free, so it is tested without
// the GUI.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

// What text a parameter takes.
enum class SugarParamKind {
  Width,            // a positive integer: the width of the node operands
  Count,            // a positive integer (the divisor n of f_modulo_counter)
  Scalar,           // one scalar-grammar value (scale, large constant)
  Vector,           // comma-separated scalars (f_constant's value)
  Operand,          // "node" (an input left unconnected), "node N" (wired to node N of
                    // the document) or a scalar constant
  OptionalOperand,  // as Operand, or "none" (the branch is omitted)
  OptionalNode,     // "node", "node N" or "none"
};

struct SugarParam {
  std::string name;
  SugarParamKind kind = SugarParamKind::Scalar;
  std::string defaultText;
  std::string description;
};

struct SugarFunction {
  std::string name;  // "f_larger"
  std::string description;
  std::vector<SugarParam> params;
};

// Every function the palette offers, in palette order.
const std::vector<SugarFunction>& sugarCatalog();
// nullptr if the catalogue has no such function.
const SugarFunction* findSugarFunction(std::string_view name);

// Why `text` is not a valid value for `param`, or nullopt if it is. Scalars are checked
// with Exact::parse, so the message names the position of a typo.
std::optional<std::string> sugarParamError(const SugarParam& param, const std::string& text);

// Parameter values by name; a missing name takes the parameter's default.
using SugarArgs = std::map<std::string, std::string>;

// One input slot of a fragment node that the user wires: it is where operand `operand`
// ("x", "condition", ...) goes. An operand used several times has several slots.
struct OperandSlot {
  std::string operand;
  NodeId node = kNoNode;  // in the fragment
  int slot = 0;
  friend bool operator==(const OperandSlot&, const OperandSlot&) = default;
};

// An operand slot to wire, when the fragment is inserted, to a node of the document: the
// operand was given as "node N".
struct FragmentWire {
  std::string operand;
  NodeId node = kNoNode;  // in the fragment
  int slot = 0;
  NodeId from = kNoNode;  // in the document
  friend bool operator==(const FragmentWire&, const FragmentWire&) = default;
};

struct SugarFragment {
  Graph graph;                      // no Input nodes; operand slots are kNoNode; no output
  std::vector<OperandSlot> slots;   // every unconnected input, in node and slot order
  std::vector<FragmentWire> wires;  // the slots of operands given as "node N"
  GroupId group = kNoGroup;         // the outermost group (the sugar call itself)
};

// Builds the sugar call `name` with `args` in a scratch graph over placeholder Input
// nodes, then returns its nodes (renumbered from 0) and groups without the placeholders.
// Throws lsrl::Error naming the function and parameter on an unknown function, a bad
// value, or a call the function refuses (e.g. f_larger with two constants).
SugarFragment buildSugarFragmentWithSlots(std::string_view name, const SugarArgs& args = {});
Graph buildSugarFragment(std::string_view name, const SugarArgs& args = {});

// The member input slots that the operands of group `id` feed, found by building the call
// again from the catalogue with the group's parameters (members are created in the same
// order). Empty when the catalogue has no such function or the members no longer match
// the call (some were deleted).
std::vector<OperandSlot> groupOperandSlots(const Graph& g, GroupId id);

// The parameters of group `id` as the editor shows them: an operand parameter ("node 12",
// or "operand" for one inserted unwired) reads as what its slot is wired to now, the
// node's name or "#12", or "open" while nothing is; other values as they are.
std::vector<std::pair<std::string, std::string>> paramsAsWired(const Graph& g, GroupId id);

}  // namespace lsrl
