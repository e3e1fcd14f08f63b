// A weights file as lsrl.torch.save_compiled writes it after fine-tuning, made here in C++
// for the stepper's tests: the program compiled to a target (compileToWeights, its constants
// fitted first when asked), one tensor entry moved, and the metadata of the contract
// ("source", "precision", "fine_tuned") as the Python side writes it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/io/graph_hash.h"
#include "core/precision/fit_constants.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/target_option_values.h"
#include "core/targets/weights_file.h"

namespace lsrl::studio::test {

struct FineTuning {
  Target target = Target::Gru;
  TargetOptionValues options = {{"gru-update", "paper"}};
  bool optimize = true;
  // The constants fitted to this domain and precision before the compile (the record goes
  // to "precision"); none: as built, "precision" null.
  std::optional<std::pair<InputDomain, Precision>> fit;
  // "program", or "model" when `program` is the compiled model itself.
  std::string from = "program";
  // The entry moved by training: tensor `tensor`, flat index `entry`, by `by` (none when
  // the tensor name is empty).
  std::string tensor;
  size_t entry = 0;
  double by = 0;
  // A float32 module's weights: every value rounded to float and "dtype" "float32", stored
  // in F64 as save_compiled stores them, or (storedF32) in F32.
  bool fp32 = false;
  bool storedF32 = false;
};

// The file's tensors and metadata, before it is written.
inline TensorFile fineTunedWeights(const Graph& program, const FineTuning& f) {
  WeightsOptions options;
  options.target = f.target;
  options.targetOptions = parseTargetOptions(f.target, f.options);
  options.targetOptions.sourceName = "test program";
  options.targetOptions.sourceHash = graphHash(program);  // before any fit
  options.compile.optimize = f.optimize;
  options.compileWhen = f.from == "model" ? CompileWhen::Never : CompileWhen::UnlessPath;
  std::optional<ConstantFit> fit;
  if (f.fit) {
    fit = fitConstants(program, f.fit->first, f.fit->second);
    options.targetOptions.precision = constantFitJson(*fit, f.fit->first, f.fit->second);
  }
  TensorFile file = *compileToWeights(fit ? fit->graph : program, options).file;
  for (Tensor& t : file.tensors) {
    if (t.name == f.tensor) t.data.at(f.entry) += f.by;
    if (f.fp32)
      for (double& x : t.data) x = static_cast<float>(x);
    if (f.fp32 && f.storedF32) t.dtype = Tensor::F32;
  }
  nlohmann::json meta = nlohmann::json::parse(file.metadataJson);
  meta["fine_tuned"] = {
      {"by", "lsrl.torch.save_compiled"},
      {"dtype", f.fp32 ? "float32" : "float64"},
      {"target", std::string(targetName(f.target))},
      {"target_options", targetOptionValuesToJson(f.options)},
      {"compile", {{"backend", "exact"}, {"optimize", f.optimize}, {"from", f.from}}},
      {"training", {{"steps", 3}, {"loss", "mse"}}}};
  file.metadataJson = meta.dump();
  return file;
}

inline void writeFineTunedFile(const Graph& program, const std::string& path, const FineTuning& f) {
  writeWeightsFile(fineTunedWeights(program, f), path, weightsFormat(path));
}

}  // namespace lsrl::studio::test
