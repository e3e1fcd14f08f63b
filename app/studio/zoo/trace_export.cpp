#include "app/studio/zoo/trace_export.h"

#include <QString>
#include <nlohmann/json.hpp>

#include "app/studio/plots/chart_export.h"
#include "core/io/npz.h"

namespace lsrl::studio {

StateSeries traceArraySeries(const ModelRun& run, const std::string& name) {
  const Tensor& array = run.trace.get(name);
  StateSeries series;
  series.title = run.kind + " " + name;
  const size_t rows = array.shape.empty() ? 1 : static_cast<size_t>(array.shape[0]);
  const size_t width = rows == 0 ? 0 : array.data.size() / rows;
  if (array.shape.size() <= 1) {
    series.labels.push_back(name);
    for (double v : array.data) series.values.push_back({v});
    return series;
  }
  // Labels "name[i][j]..." over the trailing axes, last axis fastest (row-major).
  std::vector<int64_t> index(array.shape.size() - 1, 0);
  for (size_t c = 0; c < width; ++c) {
    std::string label = name;
    for (int64_t i : index) label += "[" + std::to_string(i) + "]";
    series.labels.push_back(label);
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < array.shape[k + 1]) break;
      index[k] = 0;
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    const auto first = array.data.begin() + static_cast<std::ptrdiff_t>(r * width);
    series.values.emplace_back(first, first + static_cast<std::ptrdiff_t>(width));
  }
  return series;
}

void exportTraceArrayCsv(const ModelRun& run, const std::string& name, const std::string& path) {
  exportSeriesCsv(traceArraySeries(run, name), QString::fromStdString(path));
}

void exportTraceNpz(const ModelRun& run, const std::string& path) {
  TensorFile file;
  file.tensors = run.trace.arrays();
  if (!run.trace.has("input")) {
    Tensor input{"input",
                 {static_cast<int64_t>(run.input.size()),
                  run.input.empty() ? 0 : static_cast<int64_t>(run.input[0].size())},
                 Tensor::F64,
                 {}};
    for (const auto& row : run.input) input.data.insert(input.data.end(), row.begin(), row.end());
    file.tensors.push_back(std::move(input));
  }
  nlohmann::json meta = {{"model", run.kind}, {"backend", run.backend}, {"config", run.config}};
  if (!run.task.empty()) meta["task"] = run.task;
  file.metadataJson = meta.dump();
  writeNpz(path, file);
}

}  // namespace lsrl::studio
