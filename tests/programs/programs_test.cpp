// The paper's programs as graphs: names of the intermediate nodes, creation order,
// flags, and the registry's parameter handling.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/error_of.h"
#include "core/graph/graph.h"
#include "core/programs/conditional.h"
#include "core/programs/more_ones.h"
#include "core/programs/program_registry.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

std::vector<std::string> opSequence(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes()) ops.emplace_back(n.countedOpName());
  return ops;
}

using testing_common::errorOf;

TEST(Conditional, NamesRoundTrip) {
  const std::vector<std::string> names = {"direct", "optimized", "step_optimized", "multiplicative",
                                          "multiplicative_optimized"};
  ASSERT_EQ(allConditionals().size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(conditionalName(allConditionals()[i]), names[i]);
    EXPECT_EQ(parseConditional(names[i]), allConditionals()[i]);
  }
  EXPECT_FALSE(usesMulti(Conditional::Direct));
  EXPECT_FALSE(usesMulti(Conditional::Optimized));
  EXPECT_FALSE(usesMulti(Conditional::StepOptimized));
  EXPECT_TRUE(usesMulti(Conditional::Multiplicative));
  EXPECT_TRUE(usesMulti(Conditional::MultiplicativeOptimized));
  const std::string msg = errorOf([] { parseConditional("Direct"); });
  for (const auto& n : names) EXPECT_NE(msg.find(n), std::string::npos) << msg;
}

TEST(Conditional, SiteForms) {
  // One site per variant on a fresh graph: D = f_ifelse(c, t, t·0), S = f_ifelse_step(c,
  // t, none), M = f_ifelse_mul(c, t, t·0), MO = f_ifelse_mul(c, t, none), O = the
  // site's own form.
  for (Conditional v : allConditionals()) {
    Graph g;
    const Var in = Input(g, 2);
    int conditions = 0;
    int values = 0;
    int optimized = 0;
    const ConditionalSite site{[&] {
                                 ++conditions;
                                 return in[0];
                               },
                               [&] {
                                 ++values;
                                 return in[1];
                               },
                               [&] {
                                 ++optimized;
                                 return in[1];
                               }};
    const Var r = conditionalAssign(v, site, Exact(100), Exact(10));
    switch (v) {
      case Conditional::Direct:
        EXPECT_EQ(values, 2);  // t, then the base of t·0
        EXPECT_EQ(g.node(4).A, ExactMatrix::identity(1, Exact(0)));
        EXPECT_EQ(g.groups().front().function, "f_ifelse");
        EXPECT_EQ(g.groups().front().params[2].second, "node 4");
        break;
      case Conditional::StepOptimized:
        EXPECT_EQ(values, 1);
        EXPECT_EQ(g.groups().front().function, "f_ifelse_step");
        EXPECT_EQ(g.groups().front().params[2].second, "none");
        EXPECT_EQ(g.groups().front().params[4].second, "10");
        break;
      case Conditional::Multiplicative:
        EXPECT_EQ(values, 2);
        EXPECT_EQ(g.groups().front().function, "f_ifelse_mul");
        EXPECT_EQ(g.groups().front().params[2].second, "node 4");
        break;
      case Conditional::MultiplicativeOptimized:
        EXPECT_EQ(values, 1);
        EXPECT_EQ(g.groups().front().function, "f_ifelse_mul");
        EXPECT_EQ(g.groups().front().params[2].second, "none");
        break;
      case Conditional::Optimized:
        EXPECT_EQ(optimized, 1);
        EXPECT_EQ(conditions, 0);
        break;
    }
    if (v != Conditional::Optimized) {
      EXPECT_EQ(conditions, 1);
    }
    EXPECT_EQ(r.dim(), 1);
  }
}

TEST(MoreOnes, CreationOrderAndNames) {
  const Graph g = buildMoreOnes();
  EXPECT_EQ(g.nodeCount(), 13u);
  EXPECT_EQ(g.findByName("input"), 0);
  EXPECT_EQ(g.findByName("ones"), 1);
  EXPECT_EQ(g.node(2).countedOpName(), "Linear");  // f_not(input)
  EXPECT_EQ(g.findByName("zeros"), 3);
  EXPECT_EQ(g.output(), 12);
  EXPECT_EQ(g.findByName("output"), 12);
  // f_larger(ones, zeros, μ = 10)
  ASSERT_EQ(g.groups().size(), 3u);  // f_not, f_larger, f_step inside it
  const Group& larger = g.groups()[1];
  EXPECT_EQ(larger.function, "f_larger");
  EXPECT_EQ(g.groups()[2].parent, larger.id);
  EXPECT_EQ(larger.params[2].second, "10");
  EXPECT_EQ(g.node(6).A, ExactMatrix::identity(1, Exact(10)));
  EXPECT_TRUE(g.node(12).alwaysPositive);
  MoreOnesParams p;
  p.mu = Exact(1000);
  EXPECT_EQ(buildMoreOnes(p).node(6).A, ExactMatrix::identity(1, Exact(1000)));
}

TEST(Vec2vec, NamedNodes) {
  for (Conditional v : allConditionals()) {
    Vec2vecParams p;
    p.n = 3;
    p.m = 2;
    p.conditional = v;
    const Graph g = buildVec2vec(p);
    const std::vector<std::pair<std::string, int>> named = {
        {"input", 6},    {"one", 1},      {"counter", 1}, {"counter_n", 3},
        {"x_update", 3}, {"x", 3},        {"step", 3},    {"lb", 3},
        {"ub", 3},       {"inside", 3},   {"total", 1},   {"in_cell", 1},
        {"active", 1},   {"active_m", 2}, {"update", 2},  {"out", 2}};
    for (const auto& [name, dim] : named) {
      const NodeId id = g.findByName(name);
      ASSERT_NE(id, kNoNode) << name << " in " << conditionalName(v);
      EXPECT_EQ(g.node(id).dim, dim) << name;
    }
    EXPECT_EQ(g.output(), g.findByName("out"));
    EXPECT_EQ(g.node(g.findByName("counter")).op, Op::LinState);
    EXPECT_EQ(g.node(g.findByName("x")).op, Op::LinState);
    EXPECT_EQ(g.node(g.findByName("out")).op, Op::LinState);
    EXPECT_TRUE(g.node(g.findByName("lb")).isSlice());
    EXPECT_EQ(g.node(g.findByName("lb")).slice->start, 1);
    EXPECT_EQ(g.node(g.findByName("lb")).slice->end, 4);
    EXPECT_TRUE(g.node(g.findByName("inside")).alwaysPositive);
    EXPECT_TRUE(g.node(g.findByName("active")).alwaysPositive);
    // counter starts at 0 and counts 1, 2, ...: init 0, A = B = [[1]].
    EXPECT_EQ(g.node(g.findByName("counter")).init, zerosVector(1));
  }
}

TEST(Vec2vec, ParameterErrors) {
  Vec2vecParams p;
  p.n = 0;
  EXPECT_THROW(buildVec2vec(p), Error);
  p.n = 2;
  p.m = 0;
  EXPECT_THROW(buildVec2vec(p), Error);
  p.m = 1;
  p.mu = Exact(0);
  EXPECT_THROW(buildVec2vec(p), Error);
  p.mu = Exact(1000);
  p.lambda = Exact(-1);
  EXPECT_THROW(buildVec2vec(p), Error);
}

TEST(Tok2tok, NamedNodesAndFlags) {
  for (Conditional v : allConditionals()) {
    Tok2tokParams p;
    p.conditional = v;
    const Graph g = buildTok2tok(p);
    std::vector<std::string> names = {
        "input",      "counter", "modL",       "mod2L",   "is_prompt", "is_compare", "is_copy",
        "first_copy", "q_in",    "query",      "q_elem",  "match",     "buffer",     "buffer_sum",
        "all_match",  "mfc",     "started_on", "copying", "copy_on",   "output"};
    for (int i = 0; i < 3; ++i) {
      for (const char* base : {"reg_", "out_", "eq_", "should_", "q_upd_", "pick_"}) {
        names.push_back(base + std::to_string(i));
      }
    }
    for (const auto& name : names) {
      EXPECT_NE(g.findByName(name), kNoNode) << name << " in " << conditionalName(v);
    }
    EXPECT_EQ(g.output(), g.findByName("output"));
    EXPECT_EQ(g.node(g.findByName("query")).dim, 3);
    EXPECT_EQ(g.node(g.findByName("buffer")).dim, 4);
    EXPECT_EQ(g.node(g.findByName("counter")).init, ExactVector{Exact(-1)});
    // The reference sets always_positive by hand on these.
    for (const char* name : {"input", "counter", "q_in", "query", "q_elem", "match", "buffer",
                             "buffer_sum", "mfc", "started_on", "reg_0", "reg_1", "reg_2"}) {
      EXPECT_TRUE(g.node(g.findByName(name)).alwaysPositive) << name;
    }
    // Every LinState: counter, two modulo counters, query, buffer, started_on, 3 registers.
    int states = 0;
    for (const Node& n : g.nodes()) states += n.op == Op::LinState ? 1 : 0;
    EXPECT_EQ(states, 9);
    // The buffer shifts up and writes the newest bit last.
    const Node& buffer = g.node(g.findByName("buffer"));
    EXPECT_EQ(buffer.A.at(0, 1), Exact(1));
    EXPECT_EQ(buffer.A.at(2, 3), Exact(1));
    EXPECT_EQ(buffer.A.nonZeros(), 3u);
    EXPECT_EQ(buffer.B.at(3, 0), Exact(1));
    EXPECT_EQ(buffer.B.nonZeros(), 1u);
  }
}

TEST(Tok2tok, CreationOrderMatchesTheReference) {
  const Graph g = buildTok2tok();
  // input, f_constant, counter, modL (11 nodes), mod2L (11 nodes), is_prompt (8), ...
  EXPECT_EQ(g.findByName("input"), 0);
  EXPECT_EQ(g.node(1).countedOpName(), "Linear");
  EXPECT_EQ(g.findByName("counter"), 2);
  EXPECT_EQ(g.node(3).op, Op::LinState);  // modL's rotating state
  EXPECT_EQ(g.findByName("modL"), 13);
  EXPECT_EQ(g.node(14).op, Op::LinState);
  EXPECT_EQ(g.findByName("mod2L"), 24);
  EXPECT_EQ(g.findByName("is_prompt"), 32);
  EXPECT_EQ(g.findByName("is_compare"), 40);
  // The registers are built after every register update, and before any output.
  const NodeId reg0 = g.findByName("reg_0");
  EXPECT_EQ(g.findByName("reg_1"), reg0 + 1);
  EXPECT_EQ(g.findByName("reg_2"), reg0 + 2);
  EXPECT_LT(g.findByName("should_2"), g.findByName("reg_update_0"));
  EXPECT_LT(g.findByName("reg_update_2"), reg0);
  EXPECT_LT(g.findByName("eq_2"), g.findByName("should_0"));
  EXPECT_EQ(g.output(), static_cast<NodeId>(g.nodeCount()) - 1);
  // The modulo counters rotate by 2π/3 and 2π/6: the field holds √3.
  EXPECT_EQ(g.conductor() % 3, 0);
}

TEST(Tok2tok, OtherLengths) {
  for (int L : {1, 2, 4, 5}) {
    Tok2tokParams p;
    p.L = L;
    const Graph g = buildTok2tok(p);
    EXPECT_EQ(g.node(g.findByName("query")).dim, L);
    EXPECT_EQ(g.node(g.findByName("buffer")).dim, L + 1);
    EXPECT_NE(g.findByName("reg_" + std::to_string(L - 1)), kNoNode);
    EXPECT_EQ(g.findByName("reg_" + std::to_string(L)), kNoNode);
  }
  // 2L = 72 positions need mu >= 1051: the modulo counter says which mu works.
  Tok2tokParams p;
  p.L = 36;
  const std::string msg = errorOf([&] { buildTok2tok(p); });
  EXPECT_NE(msg.find("mu = 10000"), std::string::npos) << msg;
  p.mu = Exact(10000);
  EXPECT_NO_THROW(buildTok2tok(p));
  p.L = 0;
  EXPECT_THROW(buildTok2tok(p), Error);
}

TEST(Registry, ParametersAndErrors) {
  EXPECT_EQ(programInfos().size(), 3u);
  const Graph a = buildProgram("tok2tok", {{"L", "2"}, {"conditional", "optimized"}});
  Tok2tokParams p;
  p.L = 2;
  p.conditional = Conditional::Optimized;
  EXPECT_EQ(opSequence(a), opSequence(buildTok2tok(p)));

  const Tok2tokParams q = tok2tokParams({{"mu", "1e4"}, {"lambda", "2*5e9"}, {"L", "4"}});
  EXPECT_EQ(q.mu, Exact(10000));
  EXPECT_EQ(q.L, 4);
  const Vec2vecParams v = vec2vecParams({{"n", "3"}, {"m", "6/2"}, {"lambda", "1e12"}});
  EXPECT_EQ(v.n, 3);
  EXPECT_EQ(v.m, 3);
  EXPECT_EQ(v.lambda, Exact(1000000000000LL));
  EXPECT_EQ(moreOnesParams({{"mu", "1/2"}}).mu, Exact::rational(1, 2));

  std::string msg = errorOf([] { buildProgram("tok3tok", {}); });
  EXPECT_NE(msg.find("more_ones, vec2vec, tok2tok"), std::string::npos) << msg;
  msg = errorOf([] { buildProgram("tok2tok", {{"n", "3"}}); });
  EXPECT_NE(msg.find("unknown parameter \"n\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("L, conditional, mu, lambda"), std::string::npos) << msg;
  msg = errorOf([] { buildProgram("more_ones", {{"L", "3"}}); });
  EXPECT_NE(msg.find("valid parameters are: mu"), std::string::npos) << msg;
  msg = errorOf([] { buildProgram("vec2vec", {{"conditional", "fast"}}); });
  EXPECT_NE(msg.find("multiplicative_optimized"), std::string::npos) << msg;
  msg = errorOf([] { buildProgram("tok2tok", {{"L", "2.5"}}); });
  EXPECT_NE(msg.find("integer"), std::string::npos) << msg;
  EXPECT_THROW(buildProgram("tok2tok", {{"L", "0"}}), Error);
  EXPECT_THROW(buildProgram("tok2tok", {{"L", "99999999999999999999"}}), Error);
  EXPECT_THROW(buildProgram("vec2vec", {{"n", "sqrt(2)"}}), Error);
  EXPECT_THROW(buildProgram("vec2vec", {{"mu", "-5"}}), Error);
  EXPECT_THROW(buildProgram("vec2vec", {{"lambda", "0"}}), Error);
  msg = errorOf([] { buildProgram("vec2vec", {{"mu", "12+"}}); });
  EXPECT_NE(msg.find("mu"), std::string::npos) << msg;
}

}  // namespace
}  // namespace lsrl
