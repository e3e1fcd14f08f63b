// Path provenance (core/compiler/provenance.h): every label it gives is checked against
// the two graphs' traces on real inputs, and the labels of the paper's programs' states
// are required to cover what a person reads (the program's named states).
#include "core/compiler/provenance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "compiler/compile_test_util.h"
#include "core/programs/more_ones.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"

namespace lsrl {
namespace {

using testing_compile::randomTokens;
using R = Carried::Relation;

CompileResult compileWith(const Graph& program, Backend backend, bool optimize = true) {
  CompileOptions o;
  o.backend = backend;
  o.optimize = optimize;
  o.recordHistory = false;
  return compile(program, o);
}

template <class V>
V related(const V& x, R relation) {
  switch (relation) {
    case R::Same:
      return x;
    case R::Negated:
      return -x;
    case R::ReluOf:
      return x > V(0) ? x : V(0);
    case R::ReluOfNegated:
      return x < V(0) ? -x : V(0);
    case R::Constant:
      break;
  }
  return x;
}

// Every Carried claim holds at every step of every input, exactly. Returns the number of
// (component, step) pairs checked.
long long expectClaimsHold(const Graph& program, const Graph& path, const PathProvenance& p,
                           const std::vector<ExactSequence>& inputs) {
  long long checked = 0;
  for (const auto& xs : inputs) {
    ExactTrace want, got;
    Executor<Exact>(program).run(xs, &want);
    Executor<Exact>(path).run(xs, &got);
    for (NodeId id = 0; id < static_cast<NodeId>(path.nodeCount()); ++id) {
      const auto& carried = p.carried[static_cast<size_t>(id)];
      for (size_t c = 0; c < carried.size(); ++c) {
        if (!carried[c]) continue;
        for (int t = 0; t < got.steps(); ++t) {
          const Exact value = got.value(id, t)[c];
          const Carried& k = *carried[c];
          const Exact expected =
              k.relation == R::Constant
                  ? Exact::parse(k.constant)
                  : related(want.value(k.node, t)[static_cast<size_t>(k.component)], k.relation);
          if (value == expected) {
            ++checked;
            continue;
          }
          ADD_FAILURE() << "path node " << id << " '" << path.node(id).name << "'[" << c
                        << "] labelled " << carriedLabel(program, k) << " at step " << t << ": "
                        << value.toString() << " vs " << expected.toString();
          return checked;
        }
      }
    }
  }
  return checked;
}

// Labels of the path's LinState components, and how many of them there are.
std::multiset<std::string> stateLabels(const Graph& program, const Graph& path,
                                       const PathProvenance& p, int* total) {
  std::multiset<std::string> out;
  *total = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(path.nodeCount()); ++id) {
    if (path.node(id).op != Op::LinState) continue;
    for (const auto& c : p.carried[static_cast<size_t>(id)]) {
      ++*total;
      if (c) out.insert(carriedLabel(program, *c));
    }
  }
  return out;
}

void report(const std::string& what, const PathProvenance& p, int stateTotal,
            size_t stateLabelled) {
  std::printf("[provenance] %s: %d of %d path components labelled; %zu of %d state components\n",
              what.c_str(), p.labelled, p.components, stateLabelled, stateTotal);
}

TEST(Provenance, PassThroughStateCarriesTheInputBesideTheCounter) {
  // x feeds a counter and a ReLU: rule 6 routes the ReLU through a pass-through state
  // that case 2 merges with the counter, so one path LinState holds both.
  Graph g;
  const NodeId x = g.addInput(1, "x");
  const NodeId counter =
      g.addLinState(x, ExactMatrix::identity(1), ExactMatrix::identity(1), {}, {}, "counter");
  const NodeId pos = g.addReLU(x, "pos");
  const NodeId both = g.addConcat({counter, pos}, "both");
  g.setOutput(g.addLinear(both, ExactMatrix::fromDense({{Exact(1), Exact(2)}}, 2), {}, "sum"));
  const CompileResult r = compileWith(g, Backend::Exact);
  const PathProvenance p = tracePathProvenance(g, r.path, Backend::Exact);
  int total = 0;
  const auto labels = stateLabels(g, r.path, p, &total);
  EXPECT_EQ(labels.count("counter[0]"), 1u);
  EXPECT_EQ(labels.count("x[0]"), 1u);
  EXPECT_EQ(static_cast<int>(labels.size()), total);
  // The output is the program's output.
  const auto& out = p.carried[static_cast<size_t>(r.path.output())];
  ASSERT_TRUE(out[0].has_value());
  EXPECT_EQ(carriedLabel(g, *out[0]), "sum[0]");
  expectClaimsHold(g, r.path, p, {randomTokens(1, 6, 1), randomTokens(1, 6, 2)});
}

TEST(Provenance, ReluBypassHalvesAreNamedByTheValueTheyCarry) {
  // x feeds a ReLU and a Linear whose user is not a ReLU: 7B's f_relu_identity bypass.
  Graph g;
  const NodeId x = g.addInput(1, "x");
  const NodeId r = g.addReLU(x, "r");
  const NodeId y = g.addLinear(x, ExactMatrix::fromDense({{Exact(3)}}, 1), {}, "y");
  const NodeId s =
      g.addLinState(y, ExactMatrix::identity(1), ExactMatrix::identity(1), {}, {}, "s");
  g.setOutput(g.addConcat({r, s}, "out"));
  const CompileResult c = compileWith(g, Backend::Exact, /*optimize=*/false);
  const PathProvenance p = tracePathProvenance(g, c.path, Backend::Exact);
  std::set<std::string> all;
  for (NodeId id = 0; id < static_cast<NodeId>(c.path.nodeCount()); ++id) {
    for (const auto& k : p.carried[static_cast<size_t>(id)])
      if (k) all.insert(carriedLabel(g, *k));
  }
  EXPECT_TRUE(all.count("r[0]")) << "the ReLU";
  EXPECT_TRUE(all.count("relu(−x[0])")) << "the bypass's negative half";
  EXPECT_TRUE(all.count("s[0]"));
  EXPECT_EQ(p.labelled, p.components);
  expectClaimsHold(g, c.path, p, {randomTokens(1, 8, 3)});
}

TEST(Provenance, MoreOnesEveryStateLabelled) {
  const Graph program = buildMoreOnes();
  for (const bool optimize : {true, false}) {
    const CompileResult r = compileWith(program, Backend::Exact, optimize);
    const PathProvenance p = tracePathProvenance(program, r.path, Backend::Exact);
    int total = 0;
    const auto labels = stateLabels(program, r.path, p, &total);
    report(std::string("more_ones") + (optimize ? "" : " (no optimise)"), p, total, labels.size());
    EXPECT_EQ(static_cast<int>(labels.size()), total);
    const int d = program.node(program.input()).dim;
    EXPECT_GT(
        expectClaimsHold(program, r.path, p, {randomTokens(d, 10, 4), randomTokens(d, 10, 5)}), 0);
  }
}

// A program compiled in one backend, its path's provenance and its state labels.
struct Labelled {
  Graph program;
  CompileResult compiled;
  PathProvenance provenance;
  std::multiset<std::string> stateLabels;
  int stateComponents = 0;
};

Labelled label(Graph program, Backend backend, const std::string& what) {
  Labelled l{std::move(program), {}, {}, {}, 0};
  l.compiled = compileWith(l.program, backend);
  l.provenance = tracePathProvenance(l.program, l.compiled.path, backend);
  l.stateLabels = stateLabels(l.program, l.compiled.path, l.provenance, &l.stateComponents);
  report(what + (backend == Backend::Float64 ? " float64" : ""), l.provenance, l.stateComponents,
         l.stateLabels.size());
  return l;
}

Graph tok2tokL3(Conditional c) {
  Tok2tokParams params;
  params.L = 3;
  params.conditional = c;
  return buildTok2tok(params);
}

Graph vec2vecN2M1(Conditional c) {
  Vec2vecParams params;
  params.n = 2;
  params.m = 1;
  params.conditional = c;
  return buildVec2vec(params);
}

class ProvenanceVariant : public ::testing::TestWithParam<Conditional> {
 protected:
  std::string variant() const { return std::string(conditionalName(GetParam())); }
};

TEST_P(ProvenanceVariant, Tok2tokNamedStatesAreFound) {
  const Labelled l = label(tok2tokL3(GetParam()), Backend::Exact, "tok2tok L=3 " + variant());
  // What a person looks for in the heat map: the program's own named states.
  for (const char* want : {"counter[0]", "query[0]", "query[2]", "reg_0[0]", "reg_2[0]"})
    EXPECT_TRUE(l.stateLabels.count(want)) << want;
  // Unnamed program nodes are named by the sugar call that made them: "relu(f_and#74[0])".
  EXPECT_TRUE(std::any_of(l.stateLabels.begin(), l.stateLabels.end(), [](const std::string& s) {
    return s.find("f_") != std::string::npos && s.find('#') != std::string::npos;
  }));
  std::vector<ExactSequence> inputs;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const Tok2tokCase c = randomDictionary(3, 3, 5, seed);
    inputs.push_back(tok2tokInput(c.dictionary, c.query, 3));
  }
  expectClaimsHold(l.program, l.compiled.path, l.provenance, inputs);
}

TEST_P(ProvenanceVariant, Float64PathsAreLabelledLikeExactOnes) {
  const std::string what = "vec2vec n=2 m=1 " + variant();
  const Labelled f = label(vec2vecN2M1(GetParam()), Backend::Float64, what);
  EXPECT_EQ(static_cast<int>(f.stateLabels.size()), f.stateComponents);
  // Float runs of the two graphs differ by rounding (1e10-scale constants cancel), so the
  // claims are checked through the exact compile: where it built the same path shape,
  // the float labels must be its labels (whose claims the exact tests verify).
  const Labelled e = label(vec2vecN2M1(GetParam()), Backend::Exact, what);
  const Graph& path = f.compiled.path;
  ASSERT_EQ(e.compiled.path.nodeCount(), path.nodeCount());
  int agree = 0, both = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(path.nodeCount()); ++id) {
    ASSERT_EQ(e.compiled.path.node(id).dim, path.node(id).dim) << "node " << id;
    for (int c = 0; c < path.node(id).dim; ++c) {
      const auto& x = f.provenance.carried[static_cast<size_t>(id)][static_cast<size_t>(c)];
      const auto& y = e.provenance.carried[static_cast<size_t>(id)][static_cast<size_t>(c)];
      if (!x || !y) continue;
      ++both;
      agree += carriedLabel(f.program, *x) == carriedLabel(e.program, *y) ? 1 : 0;
    }
  }
  std::printf("[provenance] float64 and exact labels agree on %d of %d components\n", agree, both);
  EXPECT_EQ(agree, both);

  const Labelled t = label(tok2tokL3(GetParam()), Backend::Float64, "tok2tok L=3 " + variant());
  for (const char* want : {"counter[0]", "query[1]", "reg_1[0]"})
    EXPECT_TRUE(t.stateLabels.count(want)) << want;
}

INSTANTIATE_TEST_SUITE_P(All, ProvenanceVariant, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

TEST(Provenance, RefusesPathsReadingAnotherInput) {
  Graph a;
  a.setOutput(a.addReLU(a.addInput(2, "x")));
  Graph b;
  b.setOutput(b.addReLU(b.addInput(3, "x")));
  try {
    tracePathProvenance(a, b, Backend::Exact);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 input components"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lsrl
