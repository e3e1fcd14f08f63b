#include "app/studio/stepper/weights_change.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "app/studio/stepper/base_weights.h"
#include "app/studio/stepper/opened_weights.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

double storedValue(double x, bool asFloat) {
  return asFloat ? static_cast<double>(static_cast<float>(x)) : x;
}

TensorChange tensorChange(const Tensor& base, const Tensor& tuned) {
  TensorChange c;
  c.name = tuned.name;
  c.shape = tuned.shape;
  c.count = static_cast<long long>(tuned.data.size());
  c.delta.resize(tuned.data.size());
  // An fp32 side holds floats: the other is compared as it would be stored there.
  const bool asFloat = base.dtype == Tensor::F32 || tuned.dtype == Tensor::F32;
  double base2 = 0, delta2 = 0;
  for (size_t i = 0; i < tuned.data.size(); ++i) {
    const double w0 = storedValue(base.data[i], asFloat);
    const double d = storedValue(tuned.data[i], asFloat) - w0;
    c.delta[i] = d;
    base2 += w0 * w0;
    delta2 += d * d;
    c.maxAbs = std::max(c.maxAbs, std::fabs(d));
    if (d != 0) ++c.changed;
  }
  c.baseNorm = std::sqrt(base2);
  c.deltaNorm = std::sqrt(delta2);
  c.relative = c.baseNorm > 0    ? c.deltaNorm / c.baseNorm
               : c.deltaNorm > 0 ? std::numeric_limits<double>::infinity()
                                 : 0.0;
  return c;
}

// Rows and columns of a tensor drawn as a grid (see deltaGrid).
std::pair<long long, long long> gridShape(const std::vector<int64_t>& shape) {
  if (shape.empty()) return {1, 1};
  if (shape.size() == 1) return {1, shape[0]};
  long long rest = 1;
  for (size_t i = 1; i < shape.size(); ++i) rest *= shape[i];
  return {shape[0], rest};
}

}  // namespace

std::vector<TensorChange> compareTensors(const std::vector<Tensor>& base,
                                         const std::vector<Tensor>& tuned,
                                         const std::string& baseName,
                                         const std::string& tunedName) {
  std::map<std::string, const Tensor*> baseByName;
  for (const Tensor& t : base) baseByName.emplace(t.name, &t);
  std::map<std::string, const Tensor*> tunedByName;
  for (const Tensor& t : tuned) tunedByName.emplace(t.name, &t);
  for (const Tensor& t : base) {
    if (!tunedByName.contains(t.name))
      throw Error("tensor " + inQuotes(t.name) + " is in " + baseName + " but not in " + tunedName);
  }
  std::vector<TensorChange> out;
  for (const Tensor& t : tuned) {
    const auto it = baseByName.find(t.name);
    if (it == baseByName.end())
      throw Error("tensor " + inQuotes(t.name) + " is in " + tunedName + " but not in " + baseName);
    if (it->second->shape != t.shape) {
      throw Error("tensor " + inQuotes(t.name) + " has shape " + shapeText(t.shape) + " in " +
                  tunedName + " and " + shapeText(it->second->shape) + " in " + baseName);
    }
    out.push_back(tensorChange(*it->second, t));
  }
  return out;
}

DeltaGrid deltaGrid(const TensorChange& change, int maxRows, int maxColumns) {
  const auto [rows, columns] = gridShape(change.shape);
  DeltaGrid grid;
  if (rows <= 0 || columns <= 0) return grid;
  grid.rowsPerCell = (rows + maxRows - 1) / maxRows;
  grid.columnsPerCell = (columns + maxColumns - 1) / maxColumns;
  grid.cells.assign(
      static_cast<size_t>((rows + grid.rowsPerCell - 1) / grid.rowsPerCell),
      std::vector<double>(
          static_cast<size_t>((columns + grid.columnsPerCell - 1) / grid.columnsPerCell), 0.0));
  for (long long r = 0; r < rows; ++r) {
    auto& row = grid.cells[static_cast<size_t>(r / grid.rowsPerCell)];
    for (long long c = 0; c < columns; ++c) {
      const double d = change.delta[static_cast<size_t>(r * columns + c)];
      double& cell = row[static_cast<size_t>(c / grid.columnsPerCell)];
      if (std::fabs(d) > std::fabs(cell)) cell = d;
    }
  }
  return grid;
}

WeightsChange measureWeightsChange(const Graph& program, const std::string& tunedPath,
                                   const std::optional<std::string>& basePath,
                                   const std::atomic<bool>* cancel,
                                   const std::vector<std::string>& programHashes) {
  OpenedWeights tuned = openWeights(tunedPath);
  // A float32 module started from the base rounded to floats: compare as such, whatever
  // the file stores them in.
  if (tuned.holdsFloats())
    for (Tensor& t : tuned.file.tensors) t.dtype = Tensor::F32;
  WeightsChange out;
  out.tunedFile = tuned.fileName();
  std::vector<Tensor> baseTensors;
  if (basePath) {
    OpenedWeights base = openWeights(*basePath);
    out.base = base.fileName();
    baseTensors = std::move(base.file.tensors);
  } else {
    // The base rebuilt from another program than the file's would not be where training
    // started: say so beside the figures.
    out.warning =
        tuned.sourceWarning(programHashes.empty() ? studio::programHashes(program) : programHashes);
    BaseWeights rebuilt = rebuildBaseWeights(program, baseRecipe(tuned), cancel);
    out.base = "the weights rebuilt from the program: " + rebuilt.description;
    baseTensors = std::move(rebuilt.tensors);
  }
  if (cancel != nullptr && cancel->load()) throw Cancelled("comparing the weights cancelled");
  const std::string baseName = basePath ? out.base : std::string("the rebuilt base");
  out.tensors = compareTensors(baseTensors, tuned.file.tensors, baseName, out.tunedFile);
  return out;
}

}  // namespace lsrl::studio
