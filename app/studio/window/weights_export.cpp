#include "app/studio/window/weights_export.h"

#include "core/graph/checks.h"
#include "core/io/graph_hash.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/weights_file.h"

namespace lsrl::studio {

WeightsExportSummary exportCompiledWeights(const Graph& program,
                                           const WeightsExportRequest& request,
                                           const std::function<bool()>& cancelled) {
  const std::string format = weightsFormat(request.path);  // refuse a bad name before compiling
  requireValid(program, request.sourceName);
  WeightsOptions options;
  options.target = request.target;
  options.compile.backend = request.backend;
  options.compile.optimize = request.optimize;
  if (cancelled) options.compile.progress = [&cancelled](long long) { return !cancelled(); };
  options.compileWhen =
      CompileWhen::Always;  // the open document is a program, even when it is a path
  options.modelName = "the compiled " + request.sourceName;
  options.targetOptions.sourceName = request.sourceName;
  options.targetOptions.sourceHash = graphHash(program);
  const CompiledWeights weights = compileToWeights(program, options);
  WeightsExportSummary summary;
  summary.format = format;
  summary.tensors = weights.tensors().size();
  summary.values = writeWeightsFile(*weights.file, request.path, format);
  return summary;
}

}  // namespace lsrl::studio
