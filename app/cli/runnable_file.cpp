#include "app/cli/runnable_file.h"

#include <nlohmann/json.hpp>

#include "core/io/graph_file.h"
#include "core/io/json_util.h"
#include "core/io/model_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

Graph loadRunnableGraph(const std::string& path, bool exact) {
  const nlohmann::json doc = io::parseJson(readWholeFile(path), path);
  if (!isModelDocument(doc)) return graphFromJson(doc, path);
  CompiledModel model = modelFromJson(doc, path);
  if (exact && model.backend() != Backend::Exact)
    throw Error(path + " was compiled with --backend " + std::string(backendName(model.backend())) +
                ", so its values are float64 roundings; --exact needs a model compiled with "
                "--backend exact (or run this one without --exact)");
  return std::move(model.path);
}

}  // namespace lsrl::cli
