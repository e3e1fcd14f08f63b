#include "app/studio/window/weights_export.h"

#include "core/graph/checks.h"
#include "core/io/graph_hash.h"
#include "core/io/weights_file.h"

namespace lsrl::studio {

WeightsExportSummary exportCompiledWeights(const Graph& program,
                                           const WeightsExportRequest& request,
                                           const std::function<bool()>& cancelled) {
  const std::string format = weightsFormat(request.path);  // refuse a bad name before compiling
  requireValid(program, request.sourceName);
  CompileOptions options;
  options.backend = request.backend;
  options.optimize = request.optimize;
  options.recordHistory = false;
  if (cancelled) options.progress = [&cancelled](long long) { return !cancelled(); };
  const CompileResult compiled = compile(program, options);
  requireExportableSize(compiled.path, "the compiled " + request.sourceName);
  TargetOptions targetOptions;
  targetOptions.sourceName = request.sourceName;
  targetOptions.sourceHash = graphHash(program);
  const TensorFile file = weightsFile(buildTarget(compiled.path, request.target, targetOptions));
  WeightsExportSummary summary;
  summary.format = format;
  summary.tensors = file.tensors.size();
  summary.values = writeWeightsFile(file, request.path, format);
  return summary;
}

}  // namespace lsrl::studio
