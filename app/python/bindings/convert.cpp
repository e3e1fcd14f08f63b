// Python values -> exact scalars and matrices, and back.
#include <Python.h>

#include <string>

#include "app/python/bindings/common.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

// Imported once and kept for the life of the process (a static pyb::object would be
// released after the interpreter has shut down).
PyObject* fractionType() {
  static PyObject* type =
      pyb::object(pyb::module_::import("fractions").attr("Fraction")).release().ptr();
  return type;
}

mpz_class toMpz(pyb::handle integer) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw pyb::error_already_set();
    return mpz_class(std::to_string(v));
  }
  return mpz_class(pyb::str(integer).cast<std::string>());
}

Exact fromInteger(pyb::handle integer) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw pyb::error_already_set();
    return Exact(v);
  }
  return Exact(mpz_class(pyb::str(integer).cast<std::string>()));
}

std::string typeName(pyb::handle value) {
  return pyb::str(pyb::type::handle_of(value).attr("__name__")).cast<std::string>();
}

bool isSequence(pyb::handle v) {
  return PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()) || pyb::isinstance<pyb::array>(v);
}

std::string shapeText(int rows, int cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

// Converts the value of entry (i, j), naming the entry when it is refused (a NaN among a
// thousand floats, a string the scalar grammar cannot read).
template <class F>
Exact entryValue(size_t i, size_t j, F&& convert) {
  const auto where = [&] {
    return "entry (" + std::to_string(i) + ", " + std::to_string(j) + "): ";
  };
  try {
    return convert();
  } catch (const ParseError& e) {
    throw ParseError(where() + e.what(), e.text(), e.position());
  } catch (const Error& e) {
    throw Error(where() + e.what());
  }
}

template <class T, class Convert>
ExactMatrix fromTypedArray(const pyb::array& arr, Convert convert) {
  const auto typed = pyb::array_t<T, pyb::array::forcecast>::ensure(arr);
  if (!typed) throw pyb::error_already_set();
  const auto view = typed.template unchecked<2>();
  const int rows = static_cast<int>(view.shape(0));
  const int cols = static_cast<int>(view.shape(1));
  std::vector<ExactMatrix::Entry> entries;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      const T v = view(i, j);
      if (v != T(0)) entries.push_back({i, j, entryValue(i, j, [&] { return convert(v); })});
    }
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(entries));
}

ExactMatrix fromNested(pyb::handle seq);

bool isSympyValue(pyb::handle value) {
  const pyb::object module = pyb::type::of(value).attr("__module__");
  return pyb::isinstance<pyb::str>(module) && module.cast<std::string>().rfind("sympy.", 0) == 0;
}

ExactMatrix fromArray(pyb::array arr) {
  if (arr.ndim() == 0) return ExactMatrix::fromDense({{toExact(arr.attr("item")())}}, 1);
  if (arr.ndim() > 2) {
    throw Error("expected a 1-D or 2-D array, got " + std::to_string(arr.ndim()) + " dimensions");
  }
  if (arr.ndim() == 1) arr = arr.attr("reshape")(arr.shape(0), 1).cast<pyb::array>();
  const char kind = arr.dtype().kind();
  switch (kind) {
    case 'b':
      return fromTypedArray<bool>(arr, [](bool) { return Exact(1); });
    case 'i':
      return fromTypedArray<long long>(arr, [](long long v) { return Exact(v); });
    case 'u':
      return fromTypedArray<unsigned long>(arr,
                                           [](unsigned long v) { return Exact(mpz_class(v)); });
    case 'f':
      return fromTypedArray<double>(arr, [](double v) { return Exact(v); });
    case 'O':
    case 'U':
    case 'S':
      return fromNested(arr.attr("tolist")());
    default:
      throw Error("arrays of dtype " + pyb::str(arr.dtype()).cast<std::string>() +
                  " cannot hold exact values (use integers, floats, booleans, "
                  "fractions.Fraction or strings)");
  }
}

ExactMatrix fromNested(pyb::handle seq) {
  const pyb::sequence outer = pyb::reinterpret_borrow<pyb::sequence>(seq);
  const size_t rows = outer.size();
  if (rows == 0) return ExactMatrix(0, 1);
  const bool twoD = isSequence(outer[0]);
  std::vector<ExactMatrix::Entry> entries;
  size_t cols = twoD ? pyb::len(outer[0]) : 1;
  for (size_t i = 0; i < rows; ++i) {
    pyb::object row = outer[i];
    if (isSequence(row) != twoD) {
      throw Error("a nested list mixes rows and numbers (row " + std::to_string(i) + ")");
    }
    if (!twoD) {
      Exact x = entryValue(i, 0, [&] { return toExact(row); });
      if (!x.isZero()) entries.push_back({static_cast<int>(i), 0, std::move(x)});
      continue;
    }
    const pyb::sequence r = pyb::reinterpret_borrow<pyb::sequence>(row);
    if (r.size() != cols) {
      throw Error("a nested list has rows of different lengths: row 0 has " + std::to_string(cols) +
                  " entries, row " + std::to_string(i) + " has " + std::to_string(r.size()));
    }
    for (size_t j = 0; j < cols; ++j) {
      Exact x = entryValue(i, j, [&] { return toExact(r[j]); });
      if (!x.isZero()) entries.push_back({static_cast<int>(i), static_cast<int>(j), std::move(x)});
    }
  }
  return ExactMatrix::fromEntries(static_cast<int>(rows), static_cast<int>(cols),
                                  std::move(entries));
}

}  // namespace

std::shared_ptr<Graph> commonGraph(const std::vector<const NodeRef*>& nodes, const char* what) {
  std::shared_ptr<Graph> g;
  for (const NodeRef* n : nodes) {
    if (!n->graph) throw Error(std::string(what) + ": a node is not attached to any program");
    if (!g) {
      g = n->graph;
    } else if (g != n->graph) {
      throw Error(std::string(what) +
                  ": the nodes belong to two different programs (each lsrl.Input starts its own "
                  "graph; build every node of a program from one Input)");
    }
  }
  return g;
}

Exact toExact(pyb::handle value) {
  PyObject* p = value.ptr();
  if (pyb::isinstance<Exact>(value)) return value.cast<Exact>();
  if (PyBool_Check(p)) return Exact(p == Py_True ? 1 : 0);
  if (PyLong_Check(p)) return fromInteger(value);
  if (PyFloat_Check(p)) return Exact(PyFloat_AsDouble(p));
  if (PyUnicode_Check(p)) return Exact::parse(value.cast<std::string>());
  const int isFraction = PyObject_IsInstance(p, fractionType());
  if (isFraction < 0) throw pyb::error_already_set();
  if (isFraction) {
    return Exact(mpq_class(toMpz(value.attr("numerator")), toMpz(value.attr("denominator"))));
  }
  // numpy scalars (and 0-d arrays) carry a dtype: booleans, integers and floats.
  if (pyb::hasattr(value, "dtype") && pyb::hasattr(value, "item")) {
    const char kind = value.attr("dtype").attr("kind").cast<char>();
    if (kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f')
      return toExact(value.attr("item")());
  }
  if (PyIndex_Check(p)) return fromInteger(pyb::reinterpret_steal<pyb::object>(PyNumber_Index(p)));
  if (p == Py_None || isSequence(value)) {
    throw Error("expected a number, got " + typeName(value));
  }
  // sympy numbers convert exactly, nested radicals and cos(pi/15) included, or not at all
  // (pi is no exact number): lsrl/sympy_bridge.py.
  if (isSympyValue(value)) {
    return pyb::module_::import("lsrl.sympy_bridge").attr("from_sympy")(value).cast<Exact>();
  }
  // Other number types (Decimal, sympy numbers) print in the scalar grammar.
  const std::string text = pyb::str(value).cast<std::string>();
  try {
    return Exact::parse(text);
  } catch (const Error&) {
    if (pyb::hasattr(value, "__float__")) return Exact(value.attr("__float__")().cast<double>());
    throw Error("cannot use a " + typeName(value) + " (\"" + text +
                "\") as an exact number: expected an int, float, fractions.Fraction, "
                "lsrl.Exact or a string such as \"1/3\" or \"sqrt(2)\"");
  }
}

ExactMatrix toExactMatrix(pyb::handle value) {
  if (pyb::isinstance<ExactMatrix>(value)) return value.cast<ExactMatrix>();
  if (pyb::isinstance<pyb::array>(value)) return fromArray(value.cast<pyb::array>());
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) return fromNested(value);
  // lsrl.Matrix (either mode) hands over its exact matrix.
  if (pyb::hasattr(value, "_exact_matrix")) return toExactMatrix(value.attr("_exact_matrix")());
  if (!pyb::isinstance<Exact>(value) && !PyUnicode_Check(value.ptr()) &&
      pyb::hasattr(value, "tolist")) {
    return toExactMatrix(value.attr("tolist")());
  }
  return ExactMatrix::fromDense({{toExact(value)}}, 1);
}

ExactVector toExactColumn(pyb::handle value, const std::string& what) {
  const ExactMatrix m = toExactMatrix(value);
  if (m.cols() != 1) {
    throw Error(what + " must be a column (rows x 1) or a 1-D array, got a " +
                shapeText(m.rows(), m.cols()) + " matrix");
  }
  ExactVector v = zerosVector(m.rows());
  for (const auto& e : m.entries()) v[static_cast<size_t>(e.row)] = e.value;
  return v;
}

pyb::array_t<double> toNumpy(const ExactMatrix& m) {
  pyb::array_t<double> out(
      {static_cast<pyb::ssize_t>(m.rows()), static_cast<pyb::ssize_t>(m.cols())});
  auto view = out.mutable_unchecked<2>();
  for (pyb::ssize_t i = 0; i < view.shape(0); ++i)
    for (pyb::ssize_t j = 0; j < view.shape(1); ++j) view(i, j) = 0.0;
  for (const auto& e : m.entries()) view(e.row, e.col) = e.value.toDouble();
  return out;
}

pyb::list toStringLists(const ExactMatrix& m) {
  std::vector<std::vector<std::string>> dense(
      static_cast<size_t>(m.rows()), std::vector<std::string>(static_cast<size_t>(m.cols()), "0"));
  for (const auto& e : m.entries()) {
    dense[static_cast<size_t>(e.row)][static_cast<size_t>(e.col)] = e.value.toString();
  }
  pyb::list rows;
  for (const auto& r : dense) {
    pyb::list row;
    for (const std::string& v : r) row.append(pyb::str(v));
    rows.append(row);
  }
  return rows;
}

pyb::object toFraction(const Exact& x) {
  if (!x.isRational()) throw Error(x.toString() + " is irrational: it has no fractions.Fraction");
  const mpq_class q = x.toRational();
  pyb::object num = pyb::reinterpret_steal<pyb::object>(
      PyLong_FromString(q.get_num().get_str().c_str(), nullptr, 10));
  pyb::object den = pyb::reinterpret_steal<pyb::object>(
      PyLong_FromString(q.get_den().get_str().c_str(), nullptr, 10));
  if (!num || !den) throw pyb::error_already_set();
  return pyb::reinterpret_borrow<pyb::object>(fractionType())(num, den);
}

}  // namespace lsrl::py
