// The sugar library's lowering (docs/spec/language.md §2): which primitives each function creates,
// in which order, with which matrices, and how it records itself as a group.
#include "core/graph/sugar.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/util/error.h"

namespace lsrl {
namespace {

// The counted op names of the nodes created from id `first` on, in creation order.
std::vector<std::string> opsFrom(const Graph& g, NodeId first) {
  std::vector<std::string> ops;
  for (size_t id = static_cast<size_t>(first); id < g.nodeCount(); ++id) {
    ops.emplace_back(g.node(static_cast<NodeId>(id)).countedOpName());
  }
  return ops;
}

std::vector<std::string> concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

const std::vector<std::string> kStepSugarKinds = {"Linear", "ReLU",   "Linear", "ReLU",
                                                  "Linear", "Concat", "Linear"};
const std::vector<std::string> kVarMinusVar = {"Concat", "Linear"};
const std::vector<std::string> kOneLinear = {"Linear"};

// The group with this function name created last (or nullptr).
const Group* lastGroup(const Graph& g, const std::string& function) {
  const Group* found = nullptr;
  for (const Group& gr : g.groups()) {
    if (gr.function == function) found = &gr;
  }
  return found;
}

std::string param(const Group& gr, const std::string& key) {
  for (const auto& [k, v] : gr.params) {
    if (k == key) return v;
  }
  return "<missing>";
}

struct Fixture {
  Graph g;
  Var in;
  Var x;
  Var y;
  explicit Fixture(int dim = 1) {
    in = Input(g, 2 * dim);
    x = in.slice(0, dim);
    y = in.slice(dim, 2 * dim);
  }
  NodeId next() const { return static_cast<NodeId>(g.nodeCount()); }
};

TEST(Sugar, ConstantIsOneZeroLinear) {
  Fixture f(2);
  const NodeId first = f.next();
  const Var c = f_constant(f.x, {Exact(3), Exact::rational(1, 2), Exact(0)});
  EXPECT_EQ(opsFrom(f.g, first), kOneLinear);
  EXPECT_EQ(c.dim(), 3);
  EXPECT_EQ(c.node().A.rows(), 3);
  EXPECT_EQ(c.node().A.cols(), 2);
  EXPECT_EQ(c.node().A.nonZeros(), 0u);
  EXPECT_EQ(c.node().b[1], Exact::rational(1, 2));
  EXPECT_TRUE(c.alwaysPositive());
  const Group* gr = lastGroup(f.g, "f_constant");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "input"), "node " + std::to_string(f.x.id()));
  EXPECT_EQ(param(*gr, "value"), "[3, 1/2, 0]");
  EXPECT_FALSE(f_constant(f.x, {Exact(-1)}).alwaysPositive());
  EXPECT_THROW(f_constant(f.x, {}), Error);
}

TEST(Sugar, StepLowering) {
  Fixture f(2);
  const NodeId first = f.next();
  const Var s = f_step(f.x, Exact(1000));
  EXPECT_EQ(opsFrom(f.g, first), kStepSugarKinds);
  EXPECT_TRUE(s.alwaysPositive());
  EXPECT_EQ(s.dim(), 2);
  // Linear(μ·I), ReLU, Linear(I, −1/μ), ReLU, Linear(μ·I), Concat, Linear([I, −I]).
  const Node& scaled = f.g.node(first);
  EXPECT_EQ(scaled.A, ExactMatrix::identity(2, Exact(1000)));
  EXPECT_EQ(scaled.b, zerosVector(2));
  const Node& shifted = f.g.node(first + 2);
  EXPECT_EQ(shifted.A, ExactMatrix::identity(2));
  EXPECT_EQ(shifted.b, filledVector(2, Exact::rational(-1, 1000)));
  EXPECT_EQ(shifted.inputs, std::vector<NodeId>{f.x.id()});
  EXPECT_EQ(f.g.node(first + 4).A, ExactMatrix::identity(2, Exact(1000)));
  EXPECT_EQ(f.g.node(first + 5).inputs, (std::vector<NodeId>{first + 1, first + 4}));
  EXPECT_EQ(f.g.node(first + 6).A,
            ExactMatrix::hstack({ExactMatrix::identity(2), ExactMatrix::identity(2, Exact(-1))}));
  const Group* gr = lastGroup(f.g, "f_step");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->output, s.id());
  EXPECT_EQ(gr->parent, kNoGroup);
  EXPECT_EQ(gr->nodes.size(), 7u);
  EXPECT_EQ(param(*gr, "input"), "node " + std::to_string(f.x.id()));
  EXPECT_EQ(param(*gr, "scale"), "1000");
  for (NodeId id = first; id < f.next(); ++id) EXPECT_EQ(f.g.node(id).group, gr->id);
  EXPECT_THROW(f_step(f.x, Exact(0)), Error);
  EXPECT_THROW(f_step(f.x, Exact(-3)), Error);
  // A fractional scale is fine: 1/μ stays exact.
  const NodeId first2 = f.next();
  f_step(f.x, Exact::rational(1, 10));
  EXPECT_EQ(f.g.node(first2 + 2).b, filledVector(2, Exact(-10)));
}

TEST(Sugar, LargerSmallerOperandForms) {
  Fixture f;
  NodeId first = f.next();
  Var r = f_larger(f.x, 0.5);  // x − c: one Linear
  EXPECT_EQ(opsFrom(f.g, first), concat({kOneLinear, kStepSugarKinds}));
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact::rational(-1, 2)});
  EXPECT_TRUE(r.alwaysPositive());
  const Group* gr = lastGroup(f.g, "f_larger");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "x"), "node " + std::to_string(f.x.id()));
  EXPECT_EQ(param(*gr, "y"), "1/2");
  EXPECT_EQ(param(*gr, "scale"), "1000");
  EXPECT_EQ(gr->nodes.size(), 8u);
  EXPECT_EQ(gr->output, r.id());
  // The nested f_step has f_larger as parent.
  const Group* step = lastGroup(f.g, "f_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->parent, gr->id);

  first = f.next();
  f_larger(Exact(2), f.y);  // c − y: one Linear(−I, c)
  EXPECT_EQ(opsFrom(f.g, first), concat({kOneLinear, kStepSugarKinds}));
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1, Exact(-1)));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact(2)});
  EXPECT_EQ(f.g.node(first).inputs, std::vector<NodeId>{f.y.id()});

  first = f.next();
  f_larger(f.x, f.y);  // Var − Var: Concat + Linear
  EXPECT_EQ(opsFrom(f.g, first), concat({kVarMinusVar, kStepSugarKinds}));
  EXPECT_EQ(f.g.node(first).inputs, (std::vector<NodeId>{f.x.id(), f.y.id()}));

  first = f.next();
  f_smaller(f.x, 0.5);  // step(c − x)
  EXPECT_EQ(opsFrom(f.g, first), concat({kOneLinear, kStepSugarKinds}));
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1, Exact(-1)));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact::rational(1, 2)});
  EXPECT_EQ(lastGroup(f.g, "f_smaller")->params.size(), 3u);

  first = f.next();
  f_smaller(f.x, f.y);  // step(y − x)
  EXPECT_EQ(f.g.node(first).inputs, (std::vector<NodeId>{f.y.id(), f.x.id()}));

  first = f.next();
  f_larger(f.x, 1, Exact(10));
  EXPECT_EQ(param(*lastGroup(f.g, "f_larger"), "scale"), "10");
  EXPECT_EQ(f.g.node(first + 1).A, ExactMatrix::identity(1, Exact(10)));
}

TEST(Sugar, ConstantsWhereNodesAreRequired) {
  Fixture f;
  EXPECT_THROW(f_larger(1, 2), Error);
  EXPECT_THROW(f_smaller(Exact(1), Exact(2)), Error);
  EXPECT_THROW(f_eq(1, 1), Error);
  EXPECT_THROW(f_neq(1, 2), Error);
  EXPECT_THROW(subtract(1, 2), Error);
  EXPECT_THROW(f_ifeq(1, 2, Operand(f.x), std::nullopt), Error);
  EXPECT_THROW(f_not(Var()), Error);
  EXPECT_THROW(f_step(Var()), Error);
}

TEST(Sugar, DimensionMismatchesNameNodesAndWidths) {
  Graph g;
  const Var in = Input(g, 5);
  const Var a = in.slice(0, 2);
  const Var b = in.slice(2, 5);
  const Var c1 = in[0];
  auto expectMessage = [&](auto&& fn) {
    try {
      fn();
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("node " + std::to_string(a.id())), std::string::npos) << msg;
      EXPECT_NE(msg.find("width 2"), std::string::npos) << msg;
      EXPECT_NE(msg.find("width 3"), std::string::npos) << msg;
    }
  };
  expectMessage([&] { f_larger(a, b); });
  expectMessage([&] { f_smaller(a, b); });
  expectMessage([&] { f_eq(a, b); });
  expectMessage([&] { f_neq(a, b); });
  expectMessage([&] { f_and(a, b); });
  expectMessage([&] { f_or(a, b); });
  expectMessage([&] { subtract(a, b); });
  expectMessage([&] { f_bump(a, b, b); });
  expectMessage([&] { f_ifelse(a, Operand(b), std::nullopt); });
  expectMessage([&] { f_ifelse_step(a, std::nullopt, Operand(b)); });
  expectMessage([&] { f_ifelse_mul(a, b, std::nullopt); });
  EXPECT_THROW(f_ifelse_mul(c1, std::nullopt, b), Error);
  EXPECT_THROW(f_bump(a, Operand(a), Operand(1)), Error);  // mixed bounds
  EXPECT_THROW(f_ifelse(c1, std::nullopt, std::nullopt), Error);
  EXPECT_THROW(f_ifelse_step(c1, std::nullopt, std::nullopt), Error);
  EXPECT_THROW(f_ifelse_mul(c1, std::nullopt, std::nullopt), Error);
  // A failed call leaves no group open: the next sugar call is top-level.
  f_not(c1);
  EXPECT_EQ(g.groups().back().parent, kNoGroup);
}

TEST(Sugar, TwoGraphsCannotMix) {
  Fixture f1;
  Fixture f2;
  EXPECT_THROW(f_larger(f1.x, f2.x), Error);
  EXPECT_THROW(f_and(f1.x, f2.x), Error);
}

TEST(Sugar, BumpLowering) {
  Fixture f;
  NodeId first = f.next();
  const Var b = f_bump(f.x, Exact(1), Exact(2));
  EXPECT_EQ(opsFrom(f.g, first),
            concat({kOneLinear, kStepSugarKinds, kOneLinear, kStepSugarKinds, kVarMinusVar}));
  EXPECT_TRUE(b.alwaysPositive());
  const Group* gr = lastGroup(f.g, "f_bump");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "lb"), "1");
  EXPECT_EQ(param(*gr, "ub"), "2");
  EXPECT_EQ(gr->nodes.size(), 18u);

  Graph g;
  const Var in = Input(g, 3);
  const Var z = in[0];
  const Var lb = in[1];
  const Var ub = in[2];
  first = static_cast<NodeId>(g.nodeCount());
  f_bump(z, lb, ub, Exact(100));
  EXPECT_EQ(opsFrom(g, first),
            concat({kVarMinusVar, kStepSugarKinds, kVarMinusVar, kStepSugarKinds, kVarMinusVar}));
  EXPECT_EQ(g.node(first).inputs, (std::vector<NodeId>{z.id(), lb.id()}));
  EXPECT_EQ(g.node(first + 9).inputs, (std::vector<NodeId>{z.id(), ub.id()}));
}

TEST(Sugar, EqNeqLowering) {
  Fixture f;
  NodeId first = f.next();
  const Var e = f_eq(f.x, f.y);
  // step(x−y), step(y−x), sum, −1, ·(−1), step
  EXPECT_EQ(opsFrom(f.g, first),
            concat({kVarMinusVar, kStepSugarKinds, kVarMinusVar, kStepSugarKinds, kVarMinusVar,
                    kOneLinear, kOneLinear, kStepSugarKinds}));
  EXPECT_TRUE(e.alwaysPositive());
  EXPECT_EQ(f.g.node(first + 20).b, ExactVector{Exact(-1)});
  EXPECT_EQ(f.g.node(first + 21).A, ExactMatrix::identity(1, Exact(-1)));

  first = f.next();
  const Var n = f_neq(f.x, 3);
  EXPECT_EQ(opsFrom(f.g, first), concat({kOneLinear, kStepSugarKinds, kOneLinear, kStepSugarKinds,
                                         kVarMinusVar, kStepSugarKinds}));
  EXPECT_TRUE(n.alwaysPositive());
  const Group* gr = lastGroup(f.g, "f_neq");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "y"), "3");
  // Three nested steps, all children of f_neq.
  int children = 0;
  for (const Group& child : f.g.groups()) children += child.parent == gr->id ? 1 : 0;
  EXPECT_EQ(children, 3);
}

TEST(Sugar, NotAndOrLowering) {
  Fixture f;
  NodeId first = f.next();
  const Var n = f_not(f.x);
  EXPECT_EQ(opsFrom(f.g, first), kOneLinear);
  EXPECT_EQ(n.node().A, ExactMatrix::identity(1, Exact(-1)));
  EXPECT_EQ(n.node().b, ExactVector{Exact(1)});
  EXPECT_TRUE(n.alwaysPositive());

  first = f.next();
  const Var a = f_and(f.x, f.y);
  EXPECT_EQ(opsFrom(f.g, first),
            concat({kStepSugarKinds, kStepSugarKinds, kVarMinusVar, kOneLinear, {"ReLU"}}));
  EXPECT_TRUE(a.alwaysPositive());
  EXPECT_EQ(lastGroup(f.g, "f_and")->nodes.size(), 18u);

  first = f.next();
  const Var o = f_or(f.x, f.y);
  EXPECT_EQ(opsFrom(f.g, first), concat({kVarMinusVar, kStepSugarKinds}));
  EXPECT_TRUE(o.alwaysPositive());
  // x + y is Linear([I, I]).
  EXPECT_EQ(f.g.node(first + 1).A, ExactMatrix::filled(1, 2, Exact(1)));
}

// The pieces of one f_ifelse term.
const std::vector<std::string> kFTermVar = {"Linear", "Concat", "Linear", "ReLU"};
const std::vector<std::string> kTTermVar = {"Linear", "Linear", "Concat", "Linear", "ReLU"};

TEST(Sugar, IfElseDirectLowering) {
  Fixture f;
  const Var c = f.x;
  const Var t = f.y;
  const Var fv = f_constant(f.x, {Exact(7)});
  NodeId first = f.next();
  const Var r = f_ifelse(c, Operand(t), Operand(fv), Exact(100));
  // T1, T2, sum, T3, sub, T4, sub.
  EXPECT_EQ(opsFrom(f.g, first), concat({kFTermVar, kTTermVar, kVarMinusVar, kFTermVar,
                                         kVarMinusVar, kTTermVar, kVarMinusVar}));
  EXPECT_FALSE(r.alwaysPositive());
  // T1 = ReLU(c·(−λ) + f)
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1, Exact(-100)));
  EXPECT_EQ(f.g.node(first + 1).inputs, (std::vector<NodeId>{first, fv.id()}));
  // T2 = ReLU(f_not(c)·(−λ) + t)
  EXPECT_EQ(f.g.node(first + 4).b, ExactVector{Exact(1)});
  EXPECT_EQ(f.g.node(first + 6).inputs, (std::vector<NodeId>{first + 5, t.id()}));
  // T1 + T2
  EXPECT_EQ(f.g.node(first + 9).inputs, (std::vector<NodeId>{first + 3, first + 8}));
  EXPECT_EQ(f.g.node(first + 10).A, ExactMatrix::filled(1, 2, Exact(1)));
  // T3 = ReLU(c·(−λ) − f)
  EXPECT_EQ(f.g.node(first + 13).A, ExactMatrix::fromDense({{Exact(1), Exact(-1)}}, 2));
  const Group* gr = lastGroup(f.g, "f_ifelse");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "condition"), "node " + std::to_string(c.id()));
  EXPECT_EQ(param(*gr, "t_val"), "node " + std::to_string(t.id()));
  EXPECT_EQ(param(*gr, "f_val"), "node " + std::to_string(fv.id()));
  EXPECT_EQ(param(*gr, "large_constant"), "100");
  EXPECT_EQ(gr->nodes.size(), 24u);

  // Omitted branches drop their terms (no unary-plus node).
  first = f.next();
  f_ifelse(c, Operand(t), std::nullopt);
  EXPECT_EQ(opsFrom(f.g, first), concat({kTTermVar, kTTermVar, kVarMinusVar}));
  EXPECT_EQ(param(*lastGroup(f.g, "f_ifelse"), "f_val"), "none");
  EXPECT_EQ(param(*lastGroup(f.g, "f_ifelse"), "large_constant"), "10000000000");
  first = f.next();
  f_ifelse(c, std::nullopt, Operand(t));
  EXPECT_EQ(opsFrom(f.g, first), concat({kFTermVar, kFTermVar, kVarMinusVar}));

  // Constant branches are one Linear each.
  first = f.next();
  f_ifelse(c, Operand(3), Operand(Exact(-2)));
  EXPECT_EQ(opsFrom(f.g, first), concat({{"Linear", "Linear", "ReLU"},
                                         {"Linear", "Linear", "Linear", "ReLU"},
                                         kVarMinusVar,
                                         {"Linear", "Linear", "ReLU"},
                                         kVarMinusVar,
                                         {"Linear", "Linear", "Linear", "ReLU"},
                                         kVarMinusVar}));
  EXPECT_EQ(param(*lastGroup(f.g, "f_ifelse"), "t_val"), "3");
  EXPECT_EQ(param(*lastGroup(f.g, "f_ifelse"), "f_val"), "-2");
  EXPECT_THROW(f_ifelse(c, Operand(t), std::nullopt, Exact(0)), Error);
}

TEST(Sugar, IfElseStepLowering) {
  Fixture f;
  const Var c = f.x;
  const Var t = f.y;
  // One term: Linear(±(c − ½)), f_step, Linear(λ·), Linear(−λ + ·), Concat+Linear, ReLU.
  const std::vector<std::string> term =
      concat({kOneLinear, kStepSugarKinds, kOneLinear, kOneLinear, kVarMinusVar, {"ReLU"}});
  NodeId first = f.next();
  f_ifelse_step(c, Operand(t), std::nullopt, Exact(100), Exact(10));
  EXPECT_EQ(opsFrom(f.g, first), concat({term, term, kVarMinusVar}));
  // The t gate opens for c − ½ > 0.
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact::rational(-1, 2)});
  EXPECT_EQ(f.g.node(first + 8).A, ExactMatrix::identity(1, Exact(100)));
  EXPECT_EQ(f.g.node(first + 9).A, ExactMatrix::identity(1));
  EXPECT_EQ(f.g.node(first + 9).b, ExactVector{Exact(-100)});
  EXPECT_EQ(f.g.node(first + 10).inputs, (std::vector<NodeId>{first + 9, t.id()}));
  const Group* gr = lastGroup(f.g, "f_ifelse_step");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->nodes.size(), 28u);
  EXPECT_EQ(param(*gr, "scale"), "10");
  EXPECT_EQ(param(*gr, "large_constant"), "100");
  EXPECT_EQ(param(*gr, "f_val"), "none");

  first = f.next();
  f_ifelse_step(c, std::nullopt, Operand(t));
  EXPECT_EQ(opsFrom(f.g, first), concat({term, term, kVarMinusVar}));
  // The f gate opens for ½ − c > 0.
  EXPECT_EQ(f.g.node(first).A, ExactMatrix::identity(1, Exact(-1)));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact::rational(1, 2)});

  // Both: ((T1 + T2) − T3) − T4 as docs/spec/language.md writes it.
  first = f.next();
  f_ifelse_step(c, Operand(t), Operand(t));
  EXPECT_EQ(opsFrom(f.g, first),
            concat({term, term, kVarMinusVar, term, kVarMinusVar, term, kVarMinusVar}));
  EXPECT_EQ(f.g.node(first).b, ExactVector{Exact::rational(1, 2)});        // T1: f
  EXPECT_EQ(f.g.node(first + 13).b, ExactVector{Exact::rational(-1, 2)});  // T2: t
}

TEST(Sugar, IfElseMulLowering) {
  Graph g;
  const Var in = Input(g, 6);
  const Var c = in.slice(0, 2);
  const Var t = in.slice(2, 4);
  const Var fv = in.slice(4, 6);
  NodeId first = static_cast<NodeId>(g.nodeCount());
  const Var r = f_ifelse_mul(c, t, fv);
  EXPECT_EQ(opsFrom(g, first), (std::vector<std::string>{"Linear", "Concat", "Multi", "Linear"}));
  EXPECT_EQ(g.node(first + 1).inputs, (std::vector<NodeId>{c.id(), first, t.id(), fv.id()}));
  EXPECT_EQ(g.node(first + 2).dim, 4);
  EXPECT_EQ(r.dim(), 2);
  EXPECT_EQ(r.node().A, ExactMatrix::hstack({ExactMatrix::identity(2), ExactMatrix::identity(2)}));
  const Group* gr = lastGroup(g, "f_ifelse_mul");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->params.size(), 3u);
  EXPECT_EQ(param(*gr, "f_val"), "node " + std::to_string(fv.id()));

  first = static_cast<NodeId>(g.nodeCount());
  f_ifelse_mul(c, t, std::nullopt);
  EXPECT_EQ(opsFrom(g, first), (std::vector<std::string>{"Concat", "Multi"}));
  EXPECT_EQ(g.node(first).inputs, (std::vector<NodeId>{c.id(), t.id()}));

  first = static_cast<NodeId>(g.nodeCount());
  f_ifelse_mul(c, std::nullopt, fv);
  EXPECT_EQ(opsFrom(g, first), (std::vector<std::string>{"Linear", "Concat", "Multi"}));
  EXPECT_EQ(g.node(first + 1).inputs, (std::vector<NodeId>{first, fv.id()}));
}

TEST(Sugar, IfEqIsEqThenIfElse) {
  Fixture f;
  const NodeId first = f.next();
  f_ifeq(f.x, f.y, Operand(f.x), std::nullopt, Exact(1000), Exact(50));
  EXPECT_EQ(f.g.nodeCount() - static_cast<size_t>(first), 29u + 12u);
  const Group* outer = lastGroup(f.g, "f_ifeq");
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->nodes.size(), 41u);
  EXPECT_EQ(lastGroup(f.g, "f_eq")->parent, outer->id);
  EXPECT_EQ(lastGroup(f.g, "f_ifelse")->parent, outer->id);
  EXPECT_EQ(param(*lastGroup(f.g, "f_ifelse"), "large_constant"), "50");
  EXPECT_EQ(param(*outer, "f_val"), "none");
}

TEST(Sugar, ModuloCounterLowering) {
  Graph g;
  const Var in = Input(g, 3);
  const NodeId first = static_cast<NodeId>(g.nodeCount());
  const Var r = f_modulo_counter(in, 3);
  EXPECT_EQ(opsFrom(g, first),
            concat({{"LinState", "Linear"}, kOneLinear, kStepSugarKinds, {"Linear"}}));
  const Node& cycler = g.node(first);
  EXPECT_EQ(cycler.inputs, std::vector<NodeId>{in.id()});
  EXPECT_EQ(cycler.B.rows(), 2);
  EXPECT_EQ(cycler.B.cols(), 3);
  EXPECT_EQ(cycler.B.nonZeros(), 0u);
  const Exact c = Exact::rational(-1, 2);  // cos(2π/3)
  const Exact s = Exact::sqrt(3) / Exact(2);
  EXPECT_EQ(cycler.A, ExactMatrix::fromDense({{c, -s}, {s, c}}, 2));
  EXPECT_EQ(cycler.init, (ExactVector{c, -s}));
  const Node& indicator = g.node(first + 1);
  EXPECT_EQ(indicator.A, ExactMatrix::fromDense({{Exact(1), Exact(0)}, {c, s}, {c, -s}}, 2));
  // f_larger(indicator, cos(π/3) = 1/2)
  EXPECT_EQ(g.node(first + 2).b, filledVector(3, Exact::rational(-1, 2)));
  EXPECT_EQ(r.node().A, ExactMatrix::fromDense({{Exact(0), Exact(1), Exact(2)}}, 3));
  EXPECT_TRUE(r.alwaysPositive());
  const Group* gr = lastGroup(g, "f_modulo_counter");
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(param(*gr, "divisor"), "3");
  EXPECT_EQ(param(*gr, "dummy_input"), "node " + std::to_string(in.id()));
  EXPECT_EQ(lastGroup(g, "f_larger")->parent, gr->id);
  EXPECT_EQ(gr->nodes.size(), 11u);
  EXPECT_EQ(g.conductor() % 3, 0);
}

TEST(Sugar, ModuloCounterScaleLimit) {
  Graph g;
  const Var in = Input(g, 1);
  EXPECT_NO_THROW(f_modulo_counter(in, 70));
  EXPECT_NO_THROW(f_modulo_counter(in, 1));
  EXPECT_NO_THROW(f_modulo_counter(in, 2, Exact(1)));
  try {
    f_modulo_counter(in, 71);
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("mu = 10000 "), std::string::npos) << msg;
  }
  try {
    f_modulo_counter(in, 300);
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mu = 100000 "), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(f_modulo_counter(in, 71, Exact(10000)));
  EXPECT_THROW(f_modulo_counter(in, 0), Error);
  EXPECT_THROW(f_modulo_counter(in, 3, Exact(0)), Error);
}

TEST(Sugar, ReluIdentityLowering) {
  Fixture f(2);
  const NodeId first = f.next();
  const Var r = f_relu_identity(f.x);
  EXPECT_EQ(opsFrom(f.g, first),
            (std::vector<std::string>{"ReLU", "Linear", "ReLU", "Concat", "Linear"}));
  EXPECT_EQ(f.g.node(first + 1).A, ExactMatrix::identity(2, Exact(-1)));
  EXPECT_EQ(r.node().A,
            ExactMatrix::hstack({ExactMatrix::identity(2), ExactMatrix::identity(2, Exact(-1))}));
  EXPECT_NE(lastGroup(f.g, "f_relu_identity"), nullptr);
}

TEST(Sugar, SubtractForms) {
  Fixture f;
  NodeId first = f.next();
  subtract(f.x, f.y);
  EXPECT_EQ(opsFrom(f.g, first), kVarMinusVar);
  first = f.next();
  const Var a = subtract(f.x, Exact(3));
  EXPECT_EQ(opsFrom(f.g, first), kOneLinear);
  EXPECT_EQ(a.node().b, ExactVector{Exact(-3)});
  first = f.next();
  const Var b = subtract(Exact(3), f.x);
  EXPECT_EQ(opsFrom(f.g, first), kOneLinear);
  EXPECT_EQ(b.node().A, ExactMatrix::identity(1, Exact(-1)));
  EXPECT_EQ(b.node().b, ExactVector{Exact(3)});
  EXPECT_EQ(Operand(f.x).describe(), "node " + std::to_string(f.x.id()));
  EXPECT_EQ(Operand(Exact::rational(-3, 4)).describe(), "-3/4");
  EXPECT_EQ(Operand(0.25).describe(), "1/4");
}

}  // namespace
}  // namespace lsrl
