// The golden cases of tests/data/reference_cases.json (values from the paper authors'
// Python implementation, numeric mode): our programs on the same inputs give the same
// outputs and the same LinState values at every step, in float64 and exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/executor/executor.h"
#include "core/programs/prompts.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"
#include "programs/program_test_util.h"

namespace lsrl {
namespace {

using namespace testing_programs;

FloatSequence rows(const nlohmann::json& j) {
  FloatSequence out;
  for (const auto& r : j) out.push_back(r.get<FloatVector>());
  return out;
}

// The LinState of the f_modulo_counter group whose output is `output`.
NodeId cyclerOf(const Graph& g, NodeId output) {
  for (const Group& gr : g.groups()) {
    if (gr.function != "f_modulo_counter" || gr.output != output) continue;
    for (NodeId id : gr.nodes) {
      if (g.node(id).op == Op::LinState) return id;
    }
  }
  ADD_FAILURE() << "no modulo counter ends in node " << output;
  return kNoNode;
}

// The reference's LinState names -> our nodes.
std::map<std::string, NodeId> tok2tokStates(const Graph& g) {
  return {{"GlobalCounter#1 (dim 1)", g.findByName("counter")},
          {"LinState#1 (dim 2)", cyclerOf(g, g.findByName("modL"))},
          {"LinState#2 (dim 2)", cyclerOf(g, g.findByName("mod2L"))},
          {"Query#1 (dim 3)", g.findByName("query")},
          {"Buffer#1 (dim 4)", g.findByName("buffer")},
          {"Started on#1 (dim 1)", g.findByName("started_on")},
          // networkx's topological order lists the registers last to first.
          {"LinState#3 (dim 1)", g.findByName("reg_2")},
          {"LinState#4 (dim 1)", g.findByName("reg_1")},
          {"LinState#5 (dim 1)", g.findByName("reg_0")}};
}

template <class V>
double asDouble(const V& v) {
  if constexpr (std::is_same_v<V, Exact>) {
    return v.toDouble();
  } else {
    return v;
  }
}

template <class V>
void expectRowsNear(const std::vector<std::vector<V>>& got, const FloatSequence& want, double tol,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t t = 0; t < got.size(); ++t) {
    ASSERT_EQ(got[t].size(), want[t].size()) << what << " step " << t;
    for (size_t k = 0; k < got[t].size(); ++k) {
      EXPECT_NEAR(asDouble(got[t][k]), want[t][k], tol) << what << " step " << t << " entry " << k;
    }
  }
}

TEST(ReferenceCases, Tok2tok) {
  const nlohmann::json doc = referenceCases();
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    if (c["program"] != "tok2tok") continue;
    Tok2tokParams p;
    p.L = c["L"];
    p.conditional = parseConditional(c["conditional"].get<std::string>());
    const Graph g = buildTok2tok(p);
    auto plan = Plan::make(g);
    const FloatSequence tokens = rows(c["tokens"]);
    const FloatSequence outputs = rows(c["outputs"]);
    const std::string where = "tok2tok " + c["conditional"].get<std::string>();

    FloatExecutor fx(plan);
    FloatTrace ftrace;
    expectRowsNear(fx.run(tokens, &ftrace), outputs, 1e-9, where + " float64 outputs");
    ExactExecutor ex(plan);
    ExactTrace trace;
    const ExactSequence out = ex.run(exactTokens(tokens), &trace);
    // Exactly: the outputs are the reference's (integer) tokens.
    for (size_t t = 0; t < out.size(); ++t) {
      EXPECT_EQ(out[t], ExactVector{Exact(static_cast<long long>(std::llround(outputs[t][0])))})
          << where << " exact output step " << t;
    }
    const auto states = tok2tokStates(g);
    for (const auto& [name, values] : c["linstate_values_per_step"].items()) {
      ASSERT_TRUE(states.count(name)) << "unknown reference state " << name;
      const NodeId id = states.at(name);
      ASSERT_NE(id, kNoNode) << name;
      expectRowsNear(ftrace.trajectory(id), rows(values), 1e-9, where + " float64 " + name);
      expectRowsNear(trace.trajectory(id), rows(values), 1e-9, where + " exact " + name);
    }
    EXPECT_EQ(c["linstate_values_per_step"].size(), states.size());
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(ReferenceCases, Vec2vec) {
  const nlohmann::json doc = referenceCases();
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    if (c["program"] != "vec2vec") continue;
    Vec2vecParams p;
    p.n = c["n"];
    p.m = c["m"];
    p.conditional = parseConditional(c["conditional"].get<std::string>());
    const Graph g = buildVec2vec(p);
    auto plan = Plan::make(g);
    const FloatSequence tokens = rows(c["tokens"]);
    const FloatSequence outputs = rows(c["outputs"]);
    const std::string where =
        "vec2vec " + c["conditional"].get<std::string>() + " query " + c["query"].dump();
    FloatExecutor fx(plan);
    expectRowsNear(fx.run(tokens), outputs, 1e-9, where + " float64");
    ExactExecutor ex(plan);
    const ExactSequence exactIn = exactTokens(tokens);
    const ExactSequence out = ex.run(exactIn);
    expectRowsNear(out, outputs, 1e-12, where + " exact");
    // Exactly: the last output is the query cell's token value, bit for bit.
    const std::vector<int> cell = vec2vecQueryCell(
        ExactVector(exactIn[0].begin(), exactIn[0].begin() + p.n), c["N"].get<int>());
    long long index = 0;
    for (int i : cell) index = index * c["N"].get<int>() + i;
    const ExactVector& token = exactIn[static_cast<size_t>(index) + 1];
    EXPECT_EQ(out.back(), ExactVector(token.end() - p.m, token.end())) << where;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace
}  // namespace lsrl
