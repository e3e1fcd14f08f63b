// Named tensors of the target models (docs/spec/targets.md §8) in both directions: exact
// weights to float64 core/io Tensors for export, and Tensors back to float64 weights for
// import, with every name and shape checked.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/io/tensor.h"
#include "core/targets/normal_form.h"

namespace lsrl {

// Row-major float64 tensors (shape {rows, cols} / {n}); values are the nearest doubles.
Tensor matrixTensor(std::string name, const ExactMatrix& m);
Tensor vectorTensor(std::string name, const ExactVector& v);

// The tensors of one file, looked up by name. Every accessor throws lsrl::Error naming
// `where` (the file) and the tensor: missing, or its shape differs from the expected one.
class TensorSource {
 public:
  TensorSource(const std::vector<Tensor>& tensors, std::string where);

  const std::string& where() const { return where_; }
  bool has(const std::string& name) const { return byName_.count(name) != 0; }
  const Tensor& get(const std::string& name, const std::vector<int64_t>& shape) const;
  FloatMatrix matrix(const std::string& name, int rows, int cols) const;  // zeros dropped
  std::vector<double> vector(const std::string& name, int n) const;

 private:
  std::map<std::string, const Tensor*> byName_;
  std::string where_;
};

// Metadata fields for import: meta[key] as a non-negative int / a string / a bool; throws
// lsrl::Error naming `where` and the key when it is missing or of another type.
// An integer metadata entry in 0..max. The default bound is the widest node (kMaxNodeDim),
// so that sizes derived from widths (4 gates x hidden) cannot overflow an int.
int metaInt(const nlohmann::json& meta, const std::string& key, const std::string& where,
            int max = 1 << 20);
std::string metaString(const nlohmann::json& meta, const std::string& key,
                       const std::string& where);
bool metaBool(const nlohmann::json& meta, const std::string& key, const std::string& where);
// meta[key] as an array (throws likewise).
const nlohmann::json& metaArray(const nlohmann::json& meta, const std::string& key,
                                const std::string& where);

}  // namespace lsrl
