// The weights fine-tuning started from, rebuilt from the open program the way
// lsrl.torch.save_compiled records they were built (metadata "fine_tuned" and "precision"):
// the constants fitted to the record's domain, then compileToWeights with the recorded
// target, target options and compile settings. Qt-free.
//
//   const BaseRecipe recipe = baseRecipe(openWeights("ft.safetensors"));
//   const BaseWeights base = rebuildBaseWeights(program, recipe);
//   base.tensors;  // F64, the same names and order as the file
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/studio/stepper/opened_weights.h"
#include "core/compiler/compiler.h"
#include "core/io/tensor.h"
#include "core/targets/target_option_values.h"
#include "core/targets/targets.h"

namespace lsrl::studio {

struct BaseRecipe {
  Target target = Target::LinearRnn;
  TargetOptionValues optionValues;  // as recorded, text
  TargetOptions options;            // parseTargetOptions(target, optionValues)
  Backend backend = Backend::Exact;
  bool optimize = true;
  // "from": "model": the open document is the compiled model itself, taken as the path
  // (no compile, no constant fit).
  bool fromModel = false;
  nlohmann::json precision;  // the constant-fit record (fit_constants.h), or null
};

// Reads the recipe of a file lsrl.torch.save_compiled wrote. Throws lsrl::Error naming the
// file and the metadata key: not fine-tuned (no "fine_tuned": choose the base file
// instead), an unknown target or backend, malformed options.
BaseRecipe baseRecipe(const OpenedWeights& tuned);

struct BaseWeights {
  std::vector<Tensor> tensors;  // F64
  // "gru (gru-update paper), compile exact, optimised, constants fitted for float64 to
  // inputs in [0, 9] (whole numbers), t ≤ 40"
  std::string description;
};

// Throws lsrl::Error (a program that does not compile to that target, a malformed domain)
// or lsrl::Cancelled once `cancel` is set.
BaseWeights rebuildBaseWeights(const Graph& program, const BaseRecipe& recipe,
                               const std::atomic<bool>* cancel = nullptr);

}  // namespace lsrl::studio
