#include "core/targets/compile_to_weights.h"

#include <string>
#include <utility>

#include "core/targets/weights_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// The options buildTarget would ignore for `target`, set away from their defaults
// (docs/architectures.md, "Command-line options", lists who reads what).
void requireReadOptions(Target target, const TargetOptions& o, bool byDefault) {
  const std::string name = "target " + std::string(targetName(target)) +
                           (byDefault ? " (the default for this program)" : "");
  auto refuse = [&name](const std::string& option, const std::string& why) {
    throw Error(name + " does not read " + option + ": " + why);
  };
  if (o.positivity == Positivity::Shift && !hasNonNegativeStates(target))
    refuse("positivity shift", "only rnn, gated-rnn, gru and lstm have non-negative states");
  if (o.gruUpdate != GruUpdate::Pytorch && target != Target::Gru)
    refuse("gru update paper", "it sets the state update of gru");
  if (o.stacked && target != Target::Gru && target != Target::Lstm)
    refuse("stacked", "only gru and lstm have a stacked form");
  if (!o.hawkResidual && target != Target::Hawk) refuse("hawk residual off", "it is a hawk option");
}

}  // namespace

Target defaultTarget(const Graph& path) {
  return firstMulti(path) == kNoNode ? Target::LinearRnn : Target::GatedLinearRnn;
}

const NfModel<Exact>& CompiledWeights::normalForm() const {
  if (!model) throw Error("compileToWeights stopped before the target stage: no normal form");
  return model->nf;
}

const std::vector<Tensor>& CompiledWeights::tensors() const {
  if (!file) throw Error("compileToWeights stopped before the tensors stage: no tensors");
  return file->tensors;
}

nlohmann::json CompiledWeights::metadata() const {
  if (!file) throw Error("compileToWeights stopped before the tensors stage: no metadata");
  return nlohmann::json::parse(file->metadataJson);
}

CompiledWeights compileToWeights(const Graph& program, const WeightsOptions& options) {
  // An explicit target's options are checked before a compile that may take minutes.
  if (options.target) requireReadOptions(*options.target, options.targetOptions, false);
  auto finished = [&options](WeightsStage stage) {
    if (options.onStage) options.onStage(stage);
  };

  CompiledWeights out;
  const bool compiles = options.compileWhen == CompileWhen::Always ||
                        (options.compileWhen == CompileWhen::UnlessPath && !isPath(program));
  if (!compiles) {
    out.compile.backend = options.compile.backend;
    out.compile.path = program;
    out.compile.nodesBefore = out.compile.nodesAfter = program.liveNodeCount();
  } else {
    out.compile = compile(program, options.compile);
    out.compiled = true;
  }
  finished(WeightsStage::Compile);
  out.target = options.target.value_or(defaultTarget(out.path()));
  if (!options.target) requireReadOptions(out.target, options.targetOptions, true);
  if (options.last == WeightsStage::Compile) return out;

  if (options.last == WeightsStage::Tensors) requireExportableSize(out.path(), options.modelName);
  out.model = buildTarget(out.path(), out.target, options.targetOptions);
  finished(WeightsStage::Target);
  if (options.last == WeightsStage::Target) return out;

  out.file = weightsFile(*out.model);
  finished(WeightsStage::Tensors);
  return out;
}

}  // namespace lsrl
