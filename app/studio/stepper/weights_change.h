// What fine-tuning moved: a weights file against the weights it started from (rebuilt from
// the open program, base_weights.h, or another weights file), tensor by tensor. Qt-free.
//
//   WeightsChange c = measureWeightsChange(program, "ft.safetensors", std::nullopt);
//   c.tensors[0].deltaNorm;   // ‖ΔW‖_F of the file's first tensor
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/io/tensor.h"

namespace lsrl::studio {

struct TensorChange {
  std::string name;
  std::vector<int64_t> shape;
  double baseNorm = 0;   // ‖W0‖_F
  double deltaNorm = 0;  // ‖ΔW‖_F, ΔW = W − W0
  // ‖ΔW‖_F / ‖W0‖_F; +infinity for a tensor that moved from all zeros, 0 for one that
  // stayed there.
  double relative = 0;
  double maxAbs = 0;          // max |Δ|
  long long changed = 0;      // entries with |Δ| > 0
  long long count = 0;        // entries
  std::vector<double> delta;  // row-major, as the tensor
};

// Per tensor, in the tuned file's order. Tensors are matched by name; where either side
// is F32 the other is rounded to float too, so that an fp32 module saved untouched shows no
// change. Throws lsrl::Error naming the tensor when the two sets of names differ or a
// shape does.
std::vector<TensorChange> compareTensors(const std::vector<Tensor>& base,
                                         const std::vector<Tensor>& tuned,
                                         const std::string& baseName = "the base",
                                         const std::string& tunedName = "the fine-tuned file");

// ΔW as a grid for a heat map: a matrix as it is; a vector as one row; a scalar as one
// cell; more dimensions as [first, the rest]. Grids beyond maxRows × maxColumns are
// reduced by blocks, each cell holding its block's entry of largest |Δ| (sign kept).
struct DeltaGrid {
  std::vector<std::vector<double>> cells;  // [row][column]
  long long rowsPerCell = 1;               // the block a cell stands for
  long long columnsPerCell = 1;
};
DeltaGrid deltaGrid(const TensorChange& change, int maxRows = 512, int maxColumns = 1024);

struct WeightsChange {
  std::string tunedFile;  // "ft.safetensors"
  // "the weights rebuilt from the program: gru (…), compile exact, …", or the base file's
  // name.
  std::string base;
  std::string warning;  // the file was built from another program, or empty
  std::vector<TensorChange> tensors;
};

// Reads `tunedPath` and compares it with `basePath` (a weights file) or, without one, with
// the weights rebuilt from `program` as the file records (base_weights.h), warning when the
// file's source is none of `programHashes` (opened_weights.h; empty: the program's
// graphHash). Throws lsrl::Error or lsrl::Cancelled once `cancel` is set.
WeightsChange measureWeightsChange(const Graph& program, const std::string& tunedPath,
                                   const std::optional<std::string>& basePath,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const std::vector<std::string>& programHashes = {});

}  // namespace lsrl::studio
