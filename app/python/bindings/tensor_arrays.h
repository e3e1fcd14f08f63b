// Named tensors, token sequences and JSON between the C++ core and Python: tensors as
// float64 numpy arrays (a dict, or a list of (name, array) pairs where the order is the
// file's), a sequence as a [T][width] array, JSON as the Python values json.loads gives.
// Shared by the seed-model and compiled-weights bindings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/io/tensor.h"

namespace lsrl::py {

pyb::array_t<double> arrayOf(const std::vector<int64_t>& shape, const std::vector<double>& data);
pyb::dict tensorsToDict(const std::vector<Tensor>& tensors);
pyb::list tensorsToList(const std::vector<Tensor>& tensors);  // [(name, array)], in order
// F64 tensors from {name: array} or [(name, array)] (order kept); an entry that is not a
// numeric array is an error naming it.
std::vector<Tensor> tensorsFromPython(pyb::handle weights);

using FloatRows = std::vector<std::vector<double>>;
using InputArray = pyb::array_t<double, pyb::array::c_style | pyb::array::forcecast>;

// One row per token of a [T][d] array; another number of dimensions is an error naming
// `what` and the `width` expected. The width itself is the model's to check.
FloatRows rowsOf(const InputArray& a, int width, const std::string& what);
pyb::array_t<double> rowsToArray(const FloatRows& rows, int width);

// A dict (or None: {}) through json.dumps; errors name `what`.
nlohmann::json toJson(pyb::handle value, const std::string& what);
pyb::object fromJson(const nlohmann::json& j);

}  // namespace lsrl::py
