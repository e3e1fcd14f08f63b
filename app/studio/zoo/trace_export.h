// The Models tab's trace exports: one trace array as CSV (a row per index of its first
// axis, a column per remaining index, "slots[1][2]"), or every array as .npz (float64,
// shapes kept, {"model", "task", "backend", "config"} as the metadata member) that
// numpy reads with np.load. Atomic writes; failures throw lsrl::Error naming the path.
#pragma once

#include <string>

#include "app/studio/plots/state_series.h"
#include "app/studio/zoo/model_run.h"

namespace lsrl::studio {

// The array `name` as a series: rows = its first axis (steps), labels name the rest
// ("slots[0][2]"; a 1-d array is one column named after the array). Throws lsrl::Error
// when the trace has no such array.
StateSeries traceArraySeries(const ModelRun& run, const std::string& name);
void exportTraceArrayCsv(const ModelRun& run, const std::string& name, const std::string& path);
void exportTraceNpz(const ModelRun& run, const std::string& path);

}  // namespace lsrl::studio
