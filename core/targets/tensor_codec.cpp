#include "core/targets/tensor_codec.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/util/error.h"

namespace lsrl {

Tensor matrixTensor(std::string name, const ExactMatrix& m) {
  Tensor t;
  t.name = std::move(name);
  t.shape = {m.rows(), m.cols()};
  t.data.assign(static_cast<size_t>(m.rows()) * static_cast<size_t>(m.cols()), 0.0);
  for (const auto& e : m.entries()) {
    t.data[static_cast<size_t>(e.row) * static_cast<size_t>(m.cols()) +
           static_cast<size_t>(e.col)] = e.value.toDouble();
  }
  return t;
}

Tensor vectorTensor(std::string name, const ExactVector& v) {
  Tensor t;
  t.name = std::move(name);
  t.shape = {static_cast<int64_t>(v.size())};
  t.data.reserve(v.size());
  for (const Exact& x : v) t.data.push_back(x.toDouble());
  return t;
}

TensorSource::TensorSource(const std::vector<Tensor>& tensors, std::string where)
    : where_(std::move(where)) {
  for (const Tensor& t : tensors) byName_[t.name] = &t;
}

const Tensor& TensorSource::get(const std::string& name, const std::vector<int64_t>& shape) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) throw Error(where_ + ": missing tensor '" + name + "'");
  const Tensor& t = *it->second;
  if (t.shape != shape) {
    throw Error(where_ + ": tensor '" + name + "' has shape " + shapeText(t.shape) + ", expected " +
                shapeText(shape));
  }
  return t;
}

FloatMatrix TensorSource::matrix(const std::string& name, int rows, int cols) const {
  const Tensor& t = get(name, {rows, cols});
  std::vector<FloatMatrix::Entry> entries;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const double v =
          t.data[static_cast<size_t>(r) * static_cast<size_t>(cols) + static_cast<size_t>(c)];
      if (v != 0) entries.push_back({r, c, v});
    }
  }
  return FloatMatrix::fromEntries(rows, cols, std::move(entries));
}

std::vector<double> TensorSource::vector(const std::string& name, int n) const {
  return get(name, {n}).data;
}

namespace {

const nlohmann::json& field(const nlohmann::json& meta, const std::string& key,
                            const std::string& where) {
  if (!meta.is_object() || !meta.contains(key)) {
    throw Error(where + ": metadata has no \"" + key + "\"");
  }
  return meta.at(key);
}

}  // namespace

int metaInt(const nlohmann::json& meta, const std::string& key, const std::string& where, int max) {
  const nlohmann::json& v = field(meta, key, where);
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > max) {
    throw Error(where + ": metadata \"" + key + "\" is " + v.dump() +
                ", expected an integer in 0.." + std::to_string(max));
  }
  return v.get<int>();
}

std::string metaString(const nlohmann::json& meta, const std::string& key,
                       const std::string& where) {
  const nlohmann::json& v = field(meta, key, where);
  if (!v.is_string()) {
    throw Error(where + ": metadata \"" + key + "\" is " + v.dump() + ", expected a string");
  }
  return v.get<std::string>();
}

bool metaBool(const nlohmann::json& meta, const std::string& key, const std::string& where) {
  const nlohmann::json& v = field(meta, key, where);
  if (!v.is_boolean()) {
    throw Error(where + ": metadata \"" + key + "\" is " + v.dump() + ", expected true or false");
  }
  return v.get<bool>();
}

const nlohmann::json& metaArray(const nlohmann::json& meta, const std::string& key,
                                const std::string& where) {
  const nlohmann::json& v = field(meta, key, where);
  if (!v.is_array()) {
    throw Error(where + ": metadata \"" + key + "\" is " + v.dump() + ", expected an array");
  }
  return v;
}

}  // namespace lsrl
