// The one way from a program to target weights (docs/architectures.md, "From a program to
// weights"): compile -> path graph -> normal form -> target model -> named tensors and
// metadata. lsrl compile / export, the Python export_weights, the explorer's weights
// export and its token stepper all go through it; each keeps its own extra work (printing,
// writing the file, running the model) to itself.
//
//   WeightsOptions o;                 // default target, split positivity, no history
//   o.target = Target::Gru;
//   o.targetOptions.gruUpdate = GruUpdate::Paper;
//   CompiledWeights w = compileToWeights(program, o);
//   w.path();        // the compiled path graph (w.compile: steps, counts, history)
//   w.normalForm();  // the NF the target was built from
//   *w.model;        // the TargetModel (runs exactly and in float64)
//   w.file->tensors; w.file->metadataJson;  // what a weight file holds
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/graph/graph.h"
#include "core/io/tensor.h"
#include "core/targets/targets.h"

namespace lsrl {

// The stages of compileToWeights, in order.
enum class WeightsStage : uint8_t { Compile, Target, Tensors };

// When the compile stage compiles: UnlessPath takes a program that is already a path graph
// (isPath) as the path; Always compiles a path too (a program that happens to be one);
// Never takes the program as the path (a model file's; the target refuses a non-path).
enum class CompileWhen : uint8_t { UnlessPath, Always, Never };

// The default target: the simplest exact architecture that holds the path, linear-rnn
// (Eq. 3) without Multi nodes and gated-linear-rnn (Eq. 4) with them.
Target defaultTarget(const Graph& path);

struct WeightsOptions {
  // nullopt: defaultTarget of the compiled path.
  std::optional<Target> target;
  // Positivity, input box and horizon, gru update, stacked, hawk residual, the precision
  // record and the source name / hash written to the metadata. An option set away from
  // its default for a target that does not read it is an error (not silently ignored).
  TargetOptions targetOptions;
  // Backend, optimisation, progress / cancel, history. The step history is off unless
  // asked for: weights do not need it.
  CompileOptions compile = [] {
    CompileOptions o;
    o.recordHistory = false;
    return o;
  }();
  CompileWhen compileWhen = CompileWhen::UnlessPath;
  // The last stage to run: Compile (the path only), Target (no tensors) or Tensors.
  WeightsStage last = WeightsStage::Tensors;
  // Names the model when its path is refused as too big for dense tensors
  // (requireExportableSize, checked before the target is built when tensors are wanted).
  std::string modelName = "the compiled program";
  // Called after each stage that ran; may throw (e.g. lsrl::Cancelled) to stop there.
  std::function<void(WeightsStage finished)> onStage;
};

struct CompiledWeights {
  Target target = Target::LinearRnn;  // the one asked for, or the default
  // True when the compile ran; false when the program was taken as the path (then
  // `compile` holds only that path, no steps).
  bool compiled = false;
  CompileResult compile;             // the path graph, steps, rule counts, history
  std::optional<TargetModel> model;  // stages Target and Tensors
  std::optional<TensorFile> file;    // stage Tensors: tensors and metadata JSON

  const Graph& path() const { return compile.path; }
  // The NF the target was built from (TargetModel::nf: the linear NF for the NF family's
  // linear targets and hawk, the ReLU-state NF for rnn, gated-rnn, gru and lstm).
  const NfModel<Exact>& normalForm() const;
  const std::vector<Tensor>& tensors() const;
  nlohmann::json metadata() const;
};

// Runs the stages up to options.last. Throws lsrl::Error (a program that does not compile,
// an option the target does not read, a target that cannot hold the path, a missing box
// or horizon, a path too big for dense tensors) or lsrl::Cancelled (the compile's progress
// said stop, or onStage threw it).
CompiledWeights compileToWeights(const Graph& program, const WeightsOptions& options = {});

}  // namespace lsrl
