// Every fold rule and debranch case on a minimal graph that triggers it: the rule fires,
// the result is a path, and the function is unchanged (exactly in the exact backend,
// within 1e-9 in float64).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "compiler/compile_test_util.h"
#include "core/graph/builder.h"
#include "core/graph/sugar.h"

namespace lsrl {
namespace {

using testing_compile::expectCloseFloat;
using testing_compile::expectSameExact;
using testing_compile::fired;
using testing_compile::randomTokens;

struct RuleCase {
  std::string rule;
  std::function<Graph()> build;
  std::vector<std::string> disabled = {};
};

// Builds a fresh graph whose output is what f returns.
template <class F>
Graph make(F f) {
  Graph g;
  Var out = f(g);
  g.setOutput(out.id());
  return g;
}

ExactMatrix mat(int rows, int cols, std::vector<int> values) {
  std::vector<ExactMatrix::Entry> e;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int v = values[static_cast<size_t>(r * cols + c)];
      if (v != 0) e.push_back({r, c, Exact(v)});
    }
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(e));
}

ExactVector vec(std::vector<int> values) {
  ExactVector v;
  for (int x : values) v.emplace_back(x);
  return v;
}

Var state(const Var& x, int seed) {
  const int d = x.dim();
  std::vector<int> a, b, init;
  for (int i = 0; i < d * d; ++i) a.push_back(((i + seed) % 3) - 1);
  for (int i = 0; i < d * d; ++i) b.push_back(((i * 7 + seed) % 5) - 2);
  for (int i = 0; i < d; ++i) init.push_back(i + seed);
  return LinState(x, mat(d, d, a), mat(d, d, b), vec(init),
                  vec(std::vector<int>(static_cast<size_t>(d), seed)));
}

std::vector<RuleCase> ruleCases() {
  std::vector<RuleCase> cases;
  cases.push_back({"F1 fold Linear-Linear", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return Linear(Linear(x, mat(3, 2, {1, 2, 0, -1, 3, 1}), vec({1, 0, -2})),
                                     mat(2, 3, {1, 0, 1, 2, -1, 0}), vec({0, 5}));
                     });
                   }});
  cases.push_back({"F2 fold ReLU-ReLU",
                   [] { return make([](Graph& g) { return ReLU(ReLU(Input(g, 3) * 2)); }); }});
  cases.push_back({"F3 fold Linear-LinState",
                   [] { return make([](Graph& g) { return state(Input(g, 2) * 3 + 1, 1); }); }});
  cases.push_back({"F4 fold Concat-duplicate", [] {
                     return make([](Graph& g) {
                       Var x = ReLU(Input(g, 2));
                       return Concat({x, x, x});
                     });
                   }});
  cases.push_back({"1A only Multi", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 4);
                       return Concat({Multi(x), Multi(x)});
                     });
                   }});
  cases.push_back({"1B Multi bypass", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 4);
                       return Concat({Multi(x), ReLU(x)});
                     });
                   }});
  cases.push_back({"2 only LinState", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return state(x, 1) + state(x, 2);
                     });
                   }});
  cases.push_back({"3 only ReLU", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return Concat({ReLU(x), ReLU(x)});
                     });
                   }});
  cases.push_back({"4 only Concat",
                   [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return Concat({Concat({x, x}), Concat({x})});
                     });
                   },
                   {"F4 fold Concat-duplicate"}});
  cases.push_back({"5A push Slices", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 4);
                       return Concat({x.slice(0, 2) * 3, ReLU(x.slice(1, 3)),
                                      state(x.slice(2, 4), 1),
                                      Concat({x.slice(3, 4), x.slice(0, 1)})});
                     });
                   }});
  cases.push_back(
      {"5A Slice-Multi bypass", [] {
         return make([](Graph& g) {
           Var x = Input(g, 4);
           return Concat({Multi(x.slice(0, 4)), Multi(x.slice(1, 3)), x.slice(2, 4) * 2});
         });
       }});
  cases.push_back({"5B stack Linears", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return x * 2 + (x - 1);
                     });
                   }});
  cases.push_back({"6 LinState pass-through", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return Concat({state(x, 1), ReLU(x)});
                     });
                   }});
  cases.push_back({"7A Linear-ReLU: bypass ReLUs", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       return Concat({ReLU(x), ReLU(x * -2)});
                     });
                   }});
  cases.push_back({"7B Linear-ReLU: bypass Linears", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       Var r = ReLU(x);
                       Var l = x * 3;
                       return Concat({r, l});
                     });
                   }});
  cases.push_back({"8 Linear-Concat: bypass Concats", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       Var l = x * 2 + 1;
                       return ReLU(Concat({x, l}));
                     });
                   }});
  cases.push_back({"9 ReLU-Concat: bypass Concats", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       Var r = ReLU(x);
                       return Concat({x, r});
                     });
                   }});
  cases.push_back({"10 Linear-ReLU-Concat: bypass", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       Var r = ReLU(x);
                       Var l = x * 2;
                       return Concat({x, r, l});
                     });
                   }});
  cases.push_back({"O1 compact", [] {
                     return make([](Graph& g) {
                       Var x = Input(g, 2);
                       Var y = ReLU(x * 2);  // read twice, equal values
                       return y + ReLU(x * 2);
                     });
                   }});
  return cases;
}

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

std::vector<ExactSequence> inputsFor(const Graph& g) {
  const int d = g.node(g.input()).dim;
  return {randomTokens(d, 6, 1), randomTokens(d, 6, 2), randomTokens(d, 6, 3)};
}

TEST_P(RuleTest, ExactFiresAndKeepsTheFunction) {
  const RuleCase& c = GetParam();
  const Graph program = c.build();
  CompileOptions opt;
  opt.backend = Backend::Exact;
  opt.disabledRules = c.disabled;
  opt.optimize = c.rule == "O1 compact";  // compaction would pre-empt some cases (1A, 3)
  const CompileResult r = compile(program, opt);
  EXPECT_GT(fired(r, c.rule), 0) << c.rule;
  EXPECT_TRUE(isPath(r.path));
  EXPECT_EQ(static_cast<long long>(r.steps.size()), r.stepCount);
  expectSameExact(program, r.path, inputsFor(program));
}

TEST_P(RuleTest, Float64FiresAndKeepsTheFunction) {
  const RuleCase& c = GetParam();
  const Graph program = c.build();
  CompileOptions opt;
  opt.backend = Backend::Float64;
  opt.disabledRules = c.disabled;
  opt.optimize = c.rule == "O1 compact";  // compaction would pre-empt some cases (1A, 3)
  const CompileResult r = compile(program, opt);
  EXPECT_GT(fired(r, c.rule), 0) << c.rule;
  EXPECT_TRUE(isPath(r.path));
  expectCloseFloat(program, r.path, inputsFor(program), 1e-9);
}

std::string caseName(const ::testing::TestParamInfo<RuleCase>& info) {
  std::string out;
  for (char ch : info.param.rule) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleTest, ::testing::ValuesIn(ruleCases()), caseName);

TEST(Compiler, EveryRuleHasACase) {
  std::vector<std::string> covered;
  for (const RuleCase& c : ruleCases()) covered.push_back(c.rule);
  for (const std::string& name : compileRuleNames()) {
    EXPECT_NE(std::find(covered.begin(), covered.end(), name), covered.end()) << name;
  }
}

// Every rule describes itself: a unique id, a sentence, its kind; within a kind the
// benefits decide the order rules are tried in, so they are distinct and the list comes
// highest first; compileRule finds each by id and nothing else.
TEST(Compiler, EveryRuleCarriesItsIdExplanationAndBenefit) {
  const std::vector<CompileRule> rules = compileRules();
  ASSERT_EQ(rules.size(), 19u);
  std::set<std::string> ids;
  std::map<std::string, int> lastBenefit;
  for (const CompileRule& r : rules) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_GE(r.explanation.size(), 20u) << r.id;
    EXPECT_TRUE(r.kind == "fold" || r.kind == "debranch" || r.kind == "optimize") << r.id;
    if (auto it = lastBenefit.find(r.kind); it != lastBenefit.end()) {
      EXPECT_LT(r.benefit, it->second) << r.id << " is tried after a rule of lower benefit";
    }
    lastBenefit[r.kind] = r.benefit;
    const std::optional<CompileRule> found = compileRule(r.id);
    ASSERT_TRUE(found.has_value()) << r.id;
    EXPECT_EQ(found->explanation, r.explanation);
  }
  EXPECT_EQ(rules.front().id, "F1 fold Linear-Linear");
  EXPECT_EQ(rules[4].id, "1A only Multi");  // the first debranch case
  EXPECT_EQ(rules.back().id, "O1 compact");
  EXPECT_FALSE(compileRule("5C no such rule").has_value());
  EXPECT_EQ(compileRuleNames().size(), rules.size());
}

TEST(Compiler, UnsupportedCombinationNamesTheNodeTypes) {
  Graph program = make([](Graph& g) {
    Var x = Input(g, 2);
    return x * 2 + (x - 1);
  });
  CompileOptions opt;
  opt.disabledRules = {"5B stack Linears"};
  try {
    (void)compile(program, opt);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unsupported combination"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Input node 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[Linear"), std::string::npos) << msg;
  }
}

TEST(Compiler, RejectsAnUnknownRuleName) {
  Graph program = make([](Graph& g) { return ReLU(Input(g, 1)); });
  CompileOptions opt;
  opt.disabledRules = {"no such rule"};
  EXPECT_THROW((void)compile(program, opt), Error);
}

TEST(Compiler, RejectsAnInvalidProgram) {
  Graph g;
  Var x = Input(g, 2);
  (void)ReLU(x);  // no output set
  EXPECT_THROW((void)compile(g, {}), Error);
}

TEST(Compiler, StopAfterStepsReturnsTheGraphSoFar) {
  Graph program = make([](Graph& g) {
    Var x = Input(g, 2);
    return x * 2 + (x - 1);
  });
  CompileOptions opt;
  opt.stopAfterSteps = 0;
  const CompileResult r = compile(program, opt);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(isPath(r.path));
  expectSameExact(program, r.path, inputsFor(program));
}

TEST(Compiler, FoldOnlyFoldsAndKeepsTheBranches) {
  // x branches into (2x)*3 + 1, two Linears that fold into one, and a ReLU.
  Graph program = make([](Graph& g) {
    Var x = Input(g, 2);
    return Concat({(x * 2) * 3 + 1, ReLU(x)});
  });
  CompileOptions opt;
  opt.foldOnly = true;
  const CompileResult r = compile(program, opt);
  EXPECT_FALSE(r.stopped);
  EXPECT_FALSE(isPath(r.path));  // no debranching: x still feeds two nodes
  EXPECT_EQ(r.debranchSteps, 0);
  EXPECT_GT(r.ruleCounts.at("F1 fold Linear-Linear"), 0);
  EXPECT_EQ(r.ruleCounts.count("O1 compact"), 0u);  // no size optimisation either
  EXPECT_LT(r.nodesAfter, r.nodesBefore);
  expectSameExact(program, r.path, inputsFor(program));
}

TEST(Compiler, PicksTheFirstBranchNodeInKahnOrder) {
  // y = 2x branches into two ReLUs; their sum branches later again.
  Graph program = make([](Graph& g) {
    Var x = Input(g, 2);
    Var y = x * 2;
    Var s = ReLU(y) + ReLU(y);
    return Concat({ReLU(s), ReLU(s * 3)});
  });
  CompileOptions opt;
  opt.optimize = false;  // compaction would merge the two equal ReLU(y) first
  const CompileResult r = compile(program, opt);
  ASSERT_FALSE(r.steps.empty());
  const compiler::Step* first = nullptr;
  for (const auto& s : r.steps) {
    if (s.rule.rfind("F", 0) != 0) {
      first = &s;
      break;
    }
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->branch, 1);  // y (node 1), before the later branch at s
  EXPECT_EQ(first->rule, "3 only ReLU");
  expectSameExact(program, r.path, inputsFor(program));
}

TEST(Compiler, StepsRecordNodesAndEdges) {
  Graph program = make([](Graph& g) {
    Var x = Input(g, 2);
    return Linear(Linear(x, mat(2, 2, {1, 2, 3, 4}), vec({1, 1})), mat(1, 2, {1, -1}), vec({0}));
  });
  const CompileResult r = compile(program, {});
  ASSERT_EQ(r.steps.size(), 1u);
  const compiler::Step& s = r.steps[0];
  EXPECT_EQ(s.rule, "F1 fold Linear-Linear");
  EXPECT_EQ(s.nodesAdded, std::vector<NodeId>({3}));
  std::vector<NodeId> removed = s.nodesRemoved;
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, std::vector<NodeId>({1, 2}));
  EXPECT_EQ(s.outputBefore, 2);
  EXPECT_EQ(s.outputAfter, 3);
  EXPECT_EQ(r.pathIds, std::vector<NodeId>({0, 3}));
}

}  // namespace
}  // namespace lsrl
