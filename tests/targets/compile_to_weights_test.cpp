// compileToWeights (core/targets/compile_to_weights.h): the default target, each stage
// exposed and equal to what the stage's own function gives on the stage before, the stages
// it stops after, and refusals of option combinations that cannot hold.
#include "core/targets/compile_to_weights.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/io/graph_hash.h"
#include "core/programs/more_ones.h"
#include "core/programs/vec2vec.h"
#include "core/targets/normal_form.h"
#include "core/targets/positivity.h"
#include "core/targets/weights_file.h"
#include "core/util/error.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::errorOf;

// vec2vec with n = m = 1 and multiplicative conditionals: its path has Multi layers.
Graph multiProgram() {
  Vec2vecParams p;
  p.n = 1;
  p.m = 1;
  p.conditional = Conditional::Multiplicative;
  return buildVec2vec(p);
}

ExactSequence bits(const std::vector<int>& b) {
  ExactSequence out;
  for (int x : b) out.push_back({Exact(x)});
  return out;
}

TEST(CompileToWeights, DefaultTargetIsTheSimplestExactOne) {
  const CompiledWeights plain = compileToWeights(buildMoreOnes());
  EXPECT_EQ(plain.target, Target::LinearRnn);
  EXPECT_EQ(plain.metadata()["arch"], "linear_rnn");
  EXPECT_EQ(defaultTarget(plain.path()), Target::LinearRnn);

  const CompiledWeights gated = compileToWeights(multiProgram());
  EXPECT_NE(firstMulti(gated.path()), kNoNode);
  EXPECT_EQ(gated.target, Target::GatedLinearRnn) << "a product needs the gated form";
  EXPECT_EQ(gated.metadata()["arch"], "gated_linear_rnn");
}

// Every stage is kept, and each equals its own function applied to the stage before.
TEST(CompileToWeights, StagesAreExposedAndConsistent) {
  const Graph program = buildMoreOnes();
  for (Target target : {Target::LinearRnn, Target::Rnn, Target::Lstm, Target::Hawk}) {
    SCOPED_TRACE(std::string(targetName(target)));
    WeightsOptions o;
    o.target = target;
    o.targetOptions.sourceName = "more_ones";
    o.targetOptions.sourceHash = graphHash(program);
    o.targetOptions.shift.horizon = 16;  // hawk: a counter never forgets its input
    o.compile.backend = Backend::Exact;
    const CompiledWeights w = compileToWeights(program, o);
    EXPECT_TRUE(w.compiled);
    EXPECT_EQ(w.target, target);

    // Compile: the same path as compile() itself gives.
    ASSERT_TRUE(isPath(w.path()));
    EXPECT_EQ(graphHash(w.path()), graphHash(compile(program, o.compile).path));
    EXPECT_GT(w.compile.stepCount, 0);

    // Target and tensors: as buildTarget on that path.
    const TargetModel direct = buildTarget(w.path(), target, o.targetOptions);
    ASSERT_TRUE(w.model.has_value());
    ASSERT_TRUE(w.file.has_value());
    EXPECT_EQ(w.tensors(), direct.tensors());
    EXPECT_EQ(w.metadata(), direct.metadata());
    EXPECT_EQ(w.metadata()["source"]["program"], "more_ones");
    EXPECT_EQ(*w.file, weightsFile(direct));

    // Normal form: the path's NF (linear targets, hawk) or its split (rnn, lstm).
    const NfModel<Exact> nf = compileNormalForm(w.path());
    const bool split = target == Target::Rnn || target == Target::Lstm;
    EXPECT_EQ(normalFormTensors(w.normalForm()),
              normalFormTensors(split ? splitPositivity(nf) : nf));

    // And the model computes the program.
    const ExactSequence tokens = bits({1, 0, 1, 1, 0, 0, 0, 1});
    ExactExecutor ex(program);
    EXPECT_EQ(w.model->run(tokens), ex.run(tokens));
  }
}

TEST(CompileToWeights, StopsAfterTheLastStageAskedFor) {
  std::vector<WeightsStage> seen;
  WeightsOptions o;
  o.onStage = [&seen](WeightsStage s) { seen.push_back(s); };
  o.last = WeightsStage::Compile;
  const CompiledWeights path = compileToWeights(buildMoreOnes(), o);
  EXPECT_EQ(seen, std::vector<WeightsStage>{WeightsStage::Compile});
  EXPECT_FALSE(path.model.has_value());
  EXPECT_FALSE(path.file.has_value());
  EXPECT_NE(errorOf([&] { (void)path.normalForm(); }).find("before the target stage"),
            std::string::npos);

  seen.clear();
  o.last = WeightsStage::Target;
  const CompiledWeights model = compileToWeights(buildMoreOnes(), o);
  EXPECT_EQ(seen, (std::vector<WeightsStage>{WeightsStage::Compile, WeightsStage::Target}));
  EXPECT_TRUE(model.model.has_value());
  EXPECT_FALSE(model.file.has_value());
  EXPECT_NE(errorOf([&] { (void)model.tensors(); }).find("before the tensors stage"),
            std::string::npos);

  // onStage may stop the run (a cancel between stages).
  o.last = WeightsStage::Tensors;
  o.onStage = [](WeightsStage s) {
    if (s == WeightsStage::Compile) throw Cancelled("stopped after the compile");
  };
  EXPECT_THROW(compileToWeights(buildMoreOnes(), o), Cancelled);
}

// A path graph is taken as is unless asked otherwise (a model file's path, lsrl export).
TEST(CompileToWeights, APathIsTakenAsIs) {
  const Graph path = compile(buildMoreOnes()).path;
  const CompiledWeights w = compileToWeights(path);
  EXPECT_FALSE(w.compiled);
  EXPECT_EQ(w.compile.stepCount, 0);
  EXPECT_EQ(graphHash(w.path()), graphHash(path));
  EXPECT_EQ(w.tensors(), buildTarget(path, Target::LinearRnn).tensors());

  WeightsOptions never;
  never.compileWhen = CompileWhen::Never;
  EXPECT_FALSE(compileToWeights(path, never).compiled);
  WeightsOptions always;
  always.compileWhen = CompileWhen::Always;
  EXPECT_TRUE(compileToWeights(path, always).compiled);
}

TEST(CompileToWeights, RefusesOptionCombinationsThatCannotHold) {
  const Graph program = buildMoreOnes();
  int compiles = 0;
  auto refusal = [&](Target target, auto set) {
    WeightsOptions o;
    o.target = target;
    o.onStage = [&compiles](WeightsStage s) { compiles += s == WeightsStage::Compile; };
    set(o.targetOptions);
    return errorOf([&] { compileToWeights(program, o); });
  };
  // An option the target does not read: refused before the compile, naming both.
  std::string msg = refusal(Target::LinearRnn, [](TargetOptions& t) { t.stacked = true; });
  EXPECT_NE(msg.find("target linear-rnn does not read stacked"), std::string::npos) << msg;
  msg = refusal(Target::Hawk, [](TargetOptions& t) { t.positivity = Positivity::Shift; });
  EXPECT_NE(msg.find("target hawk does not read positivity shift"), std::string::npos) << msg;
  msg = refusal(Target::Lstm, [](TargetOptions& t) { t.gruUpdate = GruUpdate::Paper; });
  EXPECT_NE(msg.find("does not read gru update paper"), std::string::npos) << msg;
  msg = refusal(Target::Gru, [](TargetOptions& t) { t.hawkResidual = false; });
  EXPECT_NE(msg.find("does not read hawk residual off"), std::string::npos) << msg;
  EXPECT_EQ(compiles, 0) << "refused before compiling";

  // With the default target, the error says it was the default.
  WeightsOptions o;
  o.targetOptions.stacked = true;
  msg = errorOf([&] { compileToWeights(program, o); });
  EXPECT_NE(msg.find("target linear-rnn (the default for this program) does not read stacked"),
            std::string::npos)
      << msg;

  // What the construction needs: gru's pytorch update needs a box and a horizon.
  msg = refusal(Target::Gru, [](TargetOptions&) {});
  EXPECT_NE(msg.find("\"pytorch\" update needs an upper bound K"), std::string::npos) << msg;
  // A product in a target without one names the Multi.
  WeightsOptions linear;
  linear.target = Target::LinearRnn;
  msg = errorOf([&] { compileToWeights(multiProgram(), linear); });
  EXPECT_NE(msg.find("cannot express a product"), std::string::npos) << msg;
}

}  // namespace
}  // namespace lsrl
