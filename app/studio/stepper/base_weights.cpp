#include "app/studio/stepper/base_weights.h"

#include "app/studio/common/declared_input_domain.h"
#include "core/io/declared_domain.h"
#include "core/precision/fit_constants.h"
#include "core/targets/compile_to_weights.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::studio {

namespace {

const nlohmann::json& field(const nlohmann::json& object, const char* key,
                            const std::string& where) {
  if (!object.is_object()) throw Error(where + ": expected an object, got " + object.dump());
  const auto it = object.find(key);
  if (it == object.end()) throw Error(where + "." + key + ": missing");
  return *it;
}

std::string textField(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& v = field(object, key, where);
  if (!v.is_string()) throw Error(where + "." + key + ": expected a string, got " + v.dump());
  return v.get<std::string>();
}

Backend backendFrom(const std::string& name, const std::string& where) {
  for (Backend b : {Backend::Exact, Backend::Float64})
    if (name == backendName(b)) return b;
  throw Error(where + ".backend: expected \"exact\" or \"float64\", got " + quoteInput(name));
}

// "gru (gru-update paper, horizon 40)"
std::string targetText(const BaseRecipe& r) {
  std::string s(targetName(r.target));
  std::string options;
  for (const auto& [name, value] : r.optionValues)
    options.append(options.empty() ? "" : ", ").append(name).append(" ").append(value);
  return options.empty() ? s : s + " (" + options + ")";
}

void stopIfCancelled(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load()) throw Cancelled("rebuilding the base cancelled");
}

}  // namespace

BaseRecipe baseRecipe(const OpenedWeights& tuned) {
  if (!tuned.fineTuned()) {
    throw Error("weights file " + quotePath(tuned.path) +
                " records no \"fine_tuned\" (lsrl.torch.save_compiled writes it), so the weights "
                "it started from cannot be rebuilt: choose them as a file");
  }
  const std::string where = "weights file " + quotePath(tuned.path) + ": fine_tuned";
  const nlohmann::json& record = tuned.metadata["fine_tuned"];
  BaseRecipe r;
  const std::string target = textField(record, "target", where);
  const std::optional<Target> t = targetFromName(target);
  if (!t) throw Error(where + ".target: unknown architecture " + quoteInput(target));
  r.target = *t;
  if (record.contains("target_options"))
    r.optionValues = targetOptionValuesFromJson(record["target_options"], where);
  try {
    r.options = parseTargetOptions(r.target, r.optionValues);
  } catch (const Error& e) {
    throw Error(where + ".target_options: " + e.what());
  }
  const nlohmann::json& compile = field(record, "compile", where);
  const std::string compileWhere = where + ".compile";
  r.backend = backendFrom(textField(compile, "backend", compileWhere), compileWhere);
  const nlohmann::json& optimize = field(compile, "optimize", compileWhere);
  if (!optimize.is_boolean())
    throw Error(compileWhere + ".optimize: expected true or false, got " + optimize.dump());
  r.optimize = optimize.get<bool>();
  const std::string from = textField(compile, "from", compileWhere);
  if (from != "program" && from != "model")
    throw Error(compileWhere + ".from: expected \"program\" or \"model\", got " + quoteInput(from));
  r.fromModel = from == "model";
  r.precision = tuned.metadata.value("precision", nlohmann::json());
  if (!r.precision.is_null() && !r.precision.is_object()) {
    throw Error("weights file " + quotePath(tuned.path) +
                ": precision: expected an object or null, got " + r.precision.dump());
  }
  return r;
}

BaseWeights rebuildBaseWeights(const Graph& program, const BaseRecipe& recipe,
                               const std::atomic<bool>* cancel) {
  BaseWeights out;
  out.description = targetText(recipe);
  out.description += recipe.fromModel
                         ? ", the open model as its path"
                         : std::string(", compile ") + std::string(backendName(recipe.backend)) +
                               (recipe.optimize ? ", optimised" : ", not optimised");
  // The constants as the record says they were fitted (a model's were fitted before it
  // was compiled).
  std::optional<ConstantFit> fit;
  if (!recipe.fromModel && recipe.precision.is_object()) {
    const Precision precision =
        parsePrecision(textField(recipe.precision, "precision", "precision"));
    if (precision != Precision::Exact) {
      InputDomain domain;
      try {
        domain = inputDomainOf(declaredDomain(recipe.precision));
      } catch (const Error& e) {
        throw Error(std::string("precision.domain: ") + e.what());
      }
      stopIfCancelled(cancel);
      fit = fitConstants(program, domain, precision);
      out.description += ", constants fitted for " + std::string(precisionName(precision)) +
                         " to " + domain.describe();
    }
  }
  stopIfCancelled(cancel);
  WeightsOptions options;
  options.target = recipe.target;
  options.targetOptions = recipe.options;
  options.compile.backend = recipe.backend;
  options.compile.optimize = recipe.optimize;
  options.compile.progress = [cancel](long long) { return cancel == nullptr || !cancel->load(); };
  options.compileWhen = recipe.fromModel ? CompileWhen::Never : CompileWhen::UnlessPath;
  options.onStage = [cancel](WeightsStage) { stopIfCancelled(cancel); };
  options.modelName = "the rebuilt base";
  out.tensors = compileToWeights(fit ? fit->graph : program, options).tensors();
  return out;
}

}  // namespace lsrl::studio
