#include "app/python/bindings/tensor_arrays.h"

#include <algorithm>

#include "core/io/json_util.h"
#include "core/util/error.h"

namespace lsrl::py {

pyb::array_t<double> arrayOf(const std::vector<int64_t>& shape, const std::vector<double>& data) {
  std::vector<pyb::ssize_t> dims(shape.begin(), shape.end());
  pyb::array_t<double> out(dims);
  std::copy(data.begin(), data.end(), out.mutable_data());
  return out;
}

pyb::dict tensorsToDict(const std::vector<Tensor>& tensors) {
  pyb::dict out;
  for (const Tensor& t : tensors) out[pyb::str(t.name)] = arrayOf(t.shape, t.data);
  return out;
}

pyb::list tensorsToList(const std::vector<Tensor>& tensors) {
  pyb::list out;
  for (const Tensor& t : tensors) out.append(pyb::make_tuple(t.name, arrayOf(t.shape, t.data)));
  return out;
}

namespace {

Tensor tensorOf(pyb::handle key, pyb::handle value) {
  const std::string name = pyb::str(key);
  const auto a = pyb::array_t<double, pyb::array::c_style | pyb::array::forcecast>::ensure(value);
  if (!a) throw Error("weight \"" + name + "\" is not a numeric array");
  return Tensor{name, std::vector<int64_t>(a.shape(), a.shape() + a.ndim()), Tensor::F64,
                std::vector<double>(a.data(), a.data() + a.size())};
}

}  // namespace

std::vector<Tensor> tensorsFromPython(pyb::handle weights) {
  std::vector<Tensor> out;
  if (pyb::isinstance<pyb::dict>(weights)) {
    for (const auto& [key, value] : pyb::reinterpret_borrow<pyb::dict>(weights))
      out.push_back(tensorOf(key, value));
    return out;
  }
  for (const pyb::handle pair : weights) {
    const auto item = pyb::reinterpret_borrow<pyb::sequence>(pair);
    if (item.size() != 2) throw Error("weights: expected (name, array) pairs");
    out.push_back(tensorOf(item[0], item[1]));
  }
  return out;
}

FloatRows rowsOf(const InputArray& a, int width, const std::string& what) {
  if (a.ndim() != 2)
    throw Error(what + ": inputs must be a [T][" + std::to_string(width) + "] array, got " +
                std::to_string(a.ndim()) + " dimensions");
  FloatRows rows(static_cast<size_t>(a.shape(0)));
  const double* p = a.data();
  for (auto& row : rows) {
    row.assign(p, p + a.shape(1));
    p += a.shape(1);
  }
  return rows;
}

pyb::array_t<double> rowsToArray(const FloatRows& rows, int width) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return arrayOf({static_cast<int64_t>(rows.size()), width}, flat);
}

nlohmann::json toJson(pyb::handle value, const std::string& what) {
  if (value.is_none()) return nlohmann::json::object();
  const std::string text = pyb::str(pyb::module_::import("json").attr("dumps")(value));
  return io::parseJson(text, what);
}

pyb::object fromJson(const nlohmann::json& j) {
  return pyb::module_::import("json").attr("loads")(j.dump());
}

}  // namespace lsrl::py
