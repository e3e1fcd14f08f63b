// The palette's sugar catalogue: every function builds as a fragment that is one named
// group (with its parameters), whose unconnected inputs are exactly its operand slots,
// and which, once those slots are wired, is the same graph as calling the sugar
// function directly.
#include "app/studio/document/sugar_catalog.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/builder.h"
#include "core/graph/checks.h"
#include "core/graph/sugar.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

std::set<std::pair<NodeId, int>> unconnectedInputs(const Graph& g) {
  std::set<std::pair<NodeId, int>> found;
  for (const Node& n : g.nodes()) {
    for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
      if (n.inputs[slot] == kNoNode) found.insert({n.id, static_cast<int>(slot)});
    }
  }
  return found;
}

std::set<std::pair<NodeId, int>> slotPositions(const std::vector<OperandSlot>& slots) {
  std::set<std::pair<NodeId, int>> found;
  for (const OperandSlot& s : slots) found.insert({s.node, s.slot});
  return found;
}

std::string param(const Group& gr, const std::string& key) {
  for (const auto& [k, v] : gr.params) {
    if (k == key) return v;
  }
  return "<missing>";
}

TEST(SugarCatalog, OffersTheRequiredFunctions) {
  for (const char* name : {"f_step", "f_bump", "f_larger", "f_smaller", "f_eq", "f_neq", "f_not",
                           "f_and", "f_or", "f_ifelse", "f_ifelse_mul", "f_ifeq",
                           "f_modulo_counter", "f_relu_identity", "f_constant"}) {
    const SugarFunction* fn = findSugarFunction(name);
    ASSERT_NE(fn, nullptr) << name;
    EXPECT_FALSE(fn->description.empty()) << name;
  }
  EXPECT_EQ(findSugarFunction("f_nothing"), nullptr);
}

TEST(SugarCatalog, DefaultsAreValidValues) {
  for (const SugarFunction& fn : sugarCatalog()) {
    for (const SugarParam& p : fn.params) {
      EXPECT_EQ(sugarParamError(p, p.defaultText), std::nullopt) << fn.name << "." << p.name;
    }
  }
  const SugarFunction* larger = findSugarFunction("f_larger");
  ASSERT_NE(larger, nullptr);
  EXPECT_EQ(larger->params.back().name, "scale");
  EXPECT_EQ(larger->params.back().defaultText, "1000");
  const SugarFunction* ifelse = findSugarFunction("f_ifelse");
  ASSERT_NE(ifelse, nullptr);
  EXPECT_EQ(ifelse->params.back().defaultText, "1e10");
}

// Every function, with its defaults: one outermost group named after it, no Input
// nodes, no output, and the unconnected inputs are exactly the listed operand slots.
TEST(SugarCatalog, EveryFragmentIsOneGroupWithItsOperandSlotsOpen) {
  for (const SugarFunction& fn : sugarCatalog()) {
    SCOPED_TRACE(fn.name);
    const SugarFragment f = buildSugarFragmentWithSlots(fn.name);
    ASSERT_GT(f.graph.nodeCount(), 0u);
    ASSERT_NE(f.group, kNoGroup);
    const Group& group = f.graph.groups()[static_cast<size_t>(f.group)];
    EXPECT_EQ(group.function, fn.name);
    EXPECT_EQ(group.parent, kNoGroup);
    EXPECT_EQ(group.nodes.size(), f.graph.nodeCount()) << "every node belongs to the call";
    EXPECT_NE(group.output, kNoNode);
    EXPECT_EQ(f.graph.output(), kNoNode);
    for (const Node& n : f.graph.nodes()) EXPECT_NE(n.op, Op::Input);
    EXPECT_FALSE(f.slots.empty());
    EXPECT_EQ(unconnectedInputs(f.graph), slotPositions(f.slots));
    // Nothing else is wrong with it: every problem is about the missing Input/output
    // or an unconnected operand.
    for (const Problem& p : checkGraph(f.graph)) {
      EXPECT_TRUE(p.kind == ProblemKind::DanglingInput || p.kind == ProblemKind::NoInput ||
                  p.kind == ProblemKind::NoOutput)
          << p.message;
    }
  }
}

TEST(SugarCatalog, LargerOfTwoNodesLeavesOneConcatWithTwoSlots) {
  const SugarFragment f = buildSugarFragmentWithSlots("f_larger", {{"width", "3"}});
  ASSERT_EQ(f.slots.size(), 2u);
  EXPECT_EQ(f.slots[0], (OperandSlot{"x", 0, 0}));
  EXPECT_EQ(f.slots[1], (OperandSlot{"y", 0, 1}));
  EXPECT_EQ(f.graph.node(0).op, Op::Concat);
  const Group& group = f.graph.groups()[0];
  EXPECT_EQ(param(group, "scale"), "1000");
  EXPECT_EQ(param(group, "x"), "operand");
  // The nested f_step group survives and names its input in fragment ids.
  ASSERT_EQ(f.graph.groups().size(), 2u);
  const Group& step = f.graph.groups()[1];
  EXPECT_EQ(step.function, "f_step");
  EXPECT_EQ(step.parent, 0);
  EXPECT_EQ(param(step, "input"), "node 1");
  EXPECT_EQ(f.graph.node(group.output).dim, 3);
}

TEST(SugarCatalog, LargerThanAConstantLeavesOneSlot) {
  const SugarFragment f = buildSugarFragmentWithSlots("f_larger", {{"y", "0"}, {"scale", "100"}});
  ASSERT_EQ(f.slots.size(), 1u);
  EXPECT_EQ(f.slots[0].operand, "x");
  EXPECT_EQ(f.graph.node(f.slots[0].node).op, Op::Linear);
  EXPECT_EQ(param(f.graph.groups()[0], "y"), "0");
  EXPECT_EQ(param(f.graph.groups()[0], "scale"), "100");
}

TEST(SugarCatalog, IfelseUsesTheConditionInEveryGate) {
  const SugarFragment both = buildSugarFragmentWithSlots("f_ifelse");
  int condition = 0;
  for (const OperandSlot& s : both.slots) condition += s.operand == "condition";
  EXPECT_EQ(condition, 4);  // two gates of each branch read c (λ·c, or 1 − c)
  const SugarFragment onlyTrue = buildSugarFragmentWithSlots("f_ifelse", {{"f_val", "none"}});
  for (const OperandSlot& s : onlyTrue.slots) EXPECT_NE(s.operand, "f_val");
  EXPECT_LT(onlyTrue.graph.nodeCount(), both.graph.nodeCount());
}

// Wiring the slots to real nodes gives exactly the graph of a direct call.
TEST(SugarCatalog, WiredFragmentEqualsTheDirectCall) {
  const int width = 2;
  const SugarFragment f =
      buildSugarFragmentWithSlots("f_ifeq", {{"width", "2"}, {"y", "1/2"}, {"f_val", "none"}});

  Graph direct;
  const Var in = Input(direct, 2 * width);
  const Var x = in.slice(0, width);
  const Var t = in.slice(width, 2 * width);
  const NodeId first = static_cast<NodeId>(direct.nodeCount());
  f_ifeq(x, Exact::rational(1, 2), Operand(t), std::nullopt);
  ASSERT_EQ(direct.nodeCount() - static_cast<size_t>(first), f.graph.nodeCount());

  std::map<std::pair<NodeId, int>, NodeId> wiredTo;
  for (const OperandSlot& s : f.slots) {
    ASSERT_TRUE(s.operand == "x" || s.operand == "t_val") << s.operand;
    wiredTo[{s.node, s.slot}] = s.operand == "x" ? x.id() : t.id();
  }
  for (const Node& n : f.graph.nodes()) {
    const Node& d = direct.node(n.id + first);
    EXPECT_EQ(n.op, d.op);
    EXPECT_EQ(n.dim, d.dim);
    EXPECT_EQ(n.A, d.A);
    EXPECT_EQ(n.b, d.b);
    EXPECT_EQ(n.alwaysPositive, d.alwaysPositive);
    ASSERT_EQ(n.inputs.size(), d.inputs.size());
    for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
      const NodeId wired = n.inputs[slot] == kNoNode ? wiredTo.at({n.id, static_cast<int>(slot)})
                                                     : n.inputs[slot] + first;
      EXPECT_EQ(wired, d.inputs[slot]) << "node " << n.id << " slot " << slot;
    }
  }
  ASSERT_EQ(f.graph.groups().size(), direct.groups().size());
  for (size_t i = 0; i < direct.groups().size(); ++i) {
    EXPECT_EQ(f.graph.groups()[i].function, direct.groups()[i].function);
    EXPECT_EQ(f.graph.groups()[i].output + first, direct.groups()[i].output);
  }
}

// Inserting the fragment into a program (as the document does) keeps its groups.
TEST(SugarCatalog, AppendedFragmentKeepsItsNamedGroups) {
  Graph program;
  Input(program, 2);
  const Graph fragment = buildSugarFragment("f_larger", {{"width", "2"}, {"scale", "10"}});
  const std::vector<NodeId> ids = program.append(fragment);
  ASSERT_EQ(ids.size(), fragment.nodeCount());
  ASSERT_EQ(program.groups().size(), 2u);
  const Group& larger = program.groups()[0];
  EXPECT_EQ(larger.function, "f_larger");
  EXPECT_EQ(param(larger, "scale"), "10");
  EXPECT_EQ(larger.nodes, ids);
  EXPECT_EQ(larger.output, ids.back());
  EXPECT_EQ(program.groups()[1].parent, larger.id);
  // The operands are the only unconnected inputs, and they stay unconnected.
  EXPECT_EQ(program.node(ids[0]).inputs, (std::vector<NodeId>{kNoNode, kNoNode}));
}

TEST(SugarCatalog, ModuloCounterKeepsItsDivisorAndExactRotation) {
  const SugarFragment f = buildSugarFragmentWithSlots("f_modulo_counter", {{"n", "5"}});
  const Group& group = f.graph.groups()[0];
  EXPECT_EQ(param(group, "divisor"), "5");
  ASSERT_EQ(f.slots.size(), 1u);
  const Node& state = f.graph.node(f.slots[0].node);
  EXPECT_EQ(state.op, Op::LinState);
  EXPECT_EQ(state.A.at(0, 0), Exact::cosPi(2, 5));
}

TEST(SugarCatalog, ConstantTakesAVector) {
  const Graph g =
      buildSugarFragment("f_constant", {{"width", "4"}, {"value", "[1, 1/3, sqrt(2)]"}});
  ASSERT_EQ(g.nodeCount(), 1u);
  EXPECT_EQ(g.node(0).dim, 3);
  EXPECT_EQ(g.node(0).A.cols(), 4);
  EXPECT_EQ(g.node(0).b[1], Exact::rational(1, 3));
  EXPECT_EQ(g.node(0).b[2], Exact::sqrt(2));
}

TEST(SugarCatalog, BadValuesAreExplained) {
  const SugarFunction* larger = findSugarFunction("f_larger");
  ASSERT_NE(larger, nullptr);
  const SugarParam& scale = larger->params.back();
  EXPECT_EQ(sugarParamError(scale, "1/3"), std::nullopt);
  EXPECT_EQ(sugarParamError(scale, "sqrt(3)/2"), std::nullopt);
  EXPECT_NE(sugarParamError(scale, "1//3"), std::nullopt);
  EXPECT_NE(sugarParamError(larger->params[0], "0"), std::nullopt);
  EXPECT_NE(sugarParamError(larger->params[0], "two"), std::nullopt);
  EXPECT_NE(sugarParamError(larger->params[1], "nod"), std::nullopt);

  try {
    buildSugarFragment("f_larger", {{"scale", "1//3"}});
    FAIL() << "a malformed scale was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
  }
  // The sugar function's own checks reach the user: two constants, a negative scale.
  EXPECT_THROW(buildSugarFragment("f_larger", {{"x", "1"}, {"y", "0"}}), Error);
  EXPECT_THROW(buildSugarFragment("f_step", {{"scale", "-1"}}), Error);
  EXPECT_THROW(buildSugarFragment("f_step", {{"steepness", "2"}}), Error);
  EXPECT_THROW(buildSugarFragment("f_nothing"), Error);
}

// "node N" names a node of the document: its slots become wires made at insertion.
TEST(SugarCatalog, AnOperandNamingANodeBecomesAWire) {
  const SugarParam& x = findSugarFunction("f_larger")->params[1];
  EXPECT_EQ(sugarParamError(x, "node 12"), std::nullopt);
  EXPECT_NE(sugarParamError(x, "node -1"), std::nullopt);
  EXPECT_NE(sugarParamError(x, "node x"), std::nullopt);
  const SugarFragment f = buildSugarFragmentWithSlots("f_larger", {{"x", "node 7"}});
  ASSERT_EQ(f.wires.size(), 1u);
  EXPECT_EQ(f.wires[0], (FragmentWire{"x", 0, 0, 7}));
  EXPECT_EQ(f.slots.size(), 2u) << "a wired operand's slot is still an operand slot";
}

// A call's box names its operands by what feeds them now, found again from the catalogue
// when the parameters no longer say it.
TEST(SugarCatalog, ParamsAsWiredNameWhatFeedsTheOperands) {
  Graph g;
  const NodeId in = g.addInput(1, "input");
  const NodeId a = g.addLinear(in, ExactMatrix::identity(1), {Exact(0)}, "a");
  const SugarFragment f = buildSugarFragmentWithSlots("f_larger", {{"scale", "10"}});
  const std::vector<NodeId> ids = g.append(f.graph);
  const GroupId call = static_cast<GroupId>(g.groups().size()) - 2;
  ASSERT_EQ(g.groups()[call].function, "f_larger");
  const NodeId concat = ids[0];
  auto shown = [&] {
    std::string s;
    for (const auto& [k, v] : paramsAsWired(g, call)) s += k + "=" + v + " ";
    return s;
  };
  EXPECT_EQ(shown(), "x=open y=open scale=10 ");
  g.mutableNode(concat).inputs = {a, kNoNode};
  EXPECT_EQ(shown(), "x=a y=open scale=10 ");
  g.mutableNode(concat).inputs = {kNoNode, in};
  EXPECT_EQ(shown(), "x=open y=input scale=10 ");
  const auto slots = groupOperandSlots(g, call);
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[1], (OperandSlot{"y", concat, 1}));
}

}  // namespace
}  // namespace lsrl
