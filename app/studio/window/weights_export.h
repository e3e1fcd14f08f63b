// File > Export > Compiled weights: compile the open program, build a target
// architecture and write its weights (safetensors or .npz, docs/weights-format.md), the
// same file `lsrl compile` + `lsrl export` would give. Qt-free; runs on a worker thread.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/compiler/compiler.h"
#include "core/targets/targets.h"

namespace lsrl::studio {

struct WeightsExportRequest {
  std::optional<Target> target;  // nullopt: defaultTarget (core/targets/compile_to_weights.h)
  Backend backend = Backend::Exact;
  bool optimize = true;
  std::string path;        // .npz: npz, else safetensors
  std::string sourceName;  // recorded in the metadata ("source")
};

struct WeightsExportSummary {
  std::string format;
  size_t tensors = 0;
  long long values = 0;
};

// Throws lsrl::Error (invalid program, a target that cannot hold it, an unwritable path)
// or lsrl::Cancelled when `cancelled` turns true during the compile.
WeightsExportSummary exportCompiledWeights(const Graph& program,
                                           const WeightsExportRequest& request,
                                           const std::function<bool()>& cancelled = {});

}  // namespace lsrl::studio
