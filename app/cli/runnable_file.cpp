#include "app/cli/runnable_file.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "core/compiler/model_file.h"
#include "core/graph/checks.h"
#include "core/io/graph_file.h"
#include "core/io/json_util.h"
#include "core/io/python_program.h"
#include "core/targets/import.h"
#include "core/targets/weights_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_lock.h"

namespace lsrl::cli {

Graph loadRunnableGraph(const std::string& path, bool exact, Validation validation,
                        bool* compiled) {
  const bool refuse = validation == Validation::Refuse;
  if (compiled != nullptr) *compiled = false;
  std::optional<nlohmann::json> doc;  // absent for a .py program
  // A model's JSON and its sidecar from one save, not a concurrent writer's two.
  std::optional<FolderLock> pairLock;
  if (!isPythonProgramPath(path)) {
    pairLock.emplace(path, FolderLock::Kind::Shared);
    doc = io::parseJson(readWholeFile(path), path);
  }
  if (!doc || !isModelDocument(*doc)) {
    Graph g = doc ? graphFromJson(*doc, path) : loadPythonProgram(path);
    if (refuse) requireValid(g, path);
    return g;
  }
  CompiledModel model = modelFromJson(*doc, path);
  if (refuse) requireValidPath(model.path, path);
  if (compiled != nullptr) *compiled = true;
  if (exact && model.backend() != Backend::Exact)
    throw Error(path + " was compiled with --backend " + std::string(backendName(model.backend())) +
                ", so its values are float64 roundings; --exact needs a model compiled with "
                "--backend exact (or run this one without --exact)");
  return std::move(model.path);
}

namespace {
bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool isWeightFile(const std::string& path) {
  return endsWith(path, ".safetensors") || endsWith(path, ".npz");
}

FloatTargetModel loadTargetWeights(const std::string& path) {
  return importTargetModel(readWeightsFile(path), path);
}

}  // namespace lsrl::cli
