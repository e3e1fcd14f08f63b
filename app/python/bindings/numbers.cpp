// lsrl.Exact (exact scalars of Q(cos 2π/N)) and _lsrl.ExactMatrix (sparse exact matrices,
// the storage of lsrl.Matrix in SYMBOLIC mode).
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

// The other operand of a comparison or arithmetic, or nothing when it is not a number
// (Python then tries the reflected operation or raises TypeError).
std::optional<Exact> numberOperand(pyb::handle other) {
  PyObject* p = other.ptr();
  if (p == Py_None || PyUnicode_Check(p) || PyList_Check(p) || PyTuple_Check(p) ||
      pyb::isinstance<pyb::array>(other) || pyb::isinstance<ExactMatrix>(other) ||
      pyb::isinstance<NodeRef>(other)) {
    return std::nullopt;
  }
  try {
    return toExact(other);
  } catch (const Error&) {
    return std::nullopt;
  }
}

template <class F>
pyb::object binary(const Exact& a, pyb::handle other, F f) {
  const auto b = numberOperand(other);
  if (!b) return pyb::reinterpret_borrow<pyb::object>(Py_NotImplemented);
  return pyb::cast(f(a, *b));
}

ExactMatrix transpose(const ExactMatrix& m) {
  std::vector<ExactMatrix::Entry> e = m.entries();
  for (auto& x : e) std::swap(x.row, x.col);
  return ExactMatrix::fromEntries(m.cols(), m.rows(), std::move(e));
}

ExactMatrix combine(const ExactMatrix& a, const ExactMatrix& b, const Exact& sb, const char* op) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    throw Error(std::string("matrix ") + op + ": shapes " + std::to_string(a.rows()) + "x" +
                std::to_string(a.cols()) + " and " + std::to_string(b.rows()) + "x" +
                std::to_string(b.cols()) + " differ");
  }
  std::vector<ExactMatrix::Entry> e = a.entries();
  for (auto x : b.entries()) {
    x.value *= sb;
    e.push_back(std::move(x));
  }
  return ExactMatrix::fromEntries(a.rows(), a.cols(), std::move(e));
}

ExactMatrix blockDiagonal(const std::vector<ExactMatrix>& blocks) {
  std::vector<ExactMatrix::Entry> e;
  int rows = 0;
  int cols = 0;
  for (const ExactMatrix& b : blocks) {
    for (auto x : b.entries()) {
      x.row += rows;
      x.col += cols;
      e.push_back(std::move(x));
    }
    rows += b.rows();
    cols += b.cols();
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(e));
}

// A rows x cols matrix of (row, col, value) entries (the sympy bridge builds matrices so).
ExactMatrix fromEntries(int rows, int cols, const std::vector<std::tuple<int, int, Exact>>& in) {
  if (rows < 0 || cols < 0) throw Error("a matrix cannot have a negative size");
  std::vector<ExactMatrix::Entry> e;
  e.reserve(in.size());
  for (const auto& [r, c, v] : in) {
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
      throw Error("entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside a " +
                  std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
    }
    e.push_back({r, c, v});
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(e));
}

// Rows [r0, r1) and columns [c0, c1) (already clamped by the caller).
ExactMatrix submatrix(const ExactMatrix& m, int r0, int r1, int c0, int c1) {
  if (r0 < 0 || c0 < 0 || r1 > m.rows() || c1 > m.cols() || r0 > r1 || c0 > c1) {
    throw Error("submatrix [" + std::to_string(r0) + ":" + std::to_string(r1) + ", " +
                std::to_string(c0) + ":" + std::to_string(c1) + "] is outside the " +
                std::to_string(m.rows()) + "x" + std::to_string(m.cols()) + " matrix");
  }
  std::vector<ExactMatrix::Entry> e;
  for (auto x : m.entries()) {
    if (x.row < r0 || x.row >= r1 || x.col < c0 || x.col >= c1) continue;
    x.row -= r0;
    x.col -= c0;
    e.push_back(std::move(x));
  }
  return ExactMatrix::fromEntries(r1 - r0, c1 - c0, std::move(e));
}

// A matrix side as the graph files bound it (docs/graph-format.md): 0..2^20.
int side(pyb::handle value, const std::string& what) {
  return static_cast<int>(integerArgument(value, what, 0, kMaxNodeDim));
}

// rows x cols, each a side, with at most 2^28 entries (a filled matrix holds them all).
std::pair<int, int> shape(pyb::handle rows, pyb::handle cols, const std::string& what) {
  const int r = side(rows, what + ": rows");
  const int c = side(cols, what + ": cols");
  if (static_cast<long long>(r) * c > kMaxMatrixEntries) {
    throw Error(what + ": a " + std::to_string(r) + "x" + std::to_string(c) + " matrix has " +
                std::to_string(static_cast<long long>(r) * c) + " entries, more than 2^28");
  }
  return {r, c};
}

pyb::object hashOf(const Exact& x) {
  if (x.isRational()) return pyb::int_(pyb::hash(toFraction(x)));
  return pyb::int_(pyb::hash(pyb::str(x.toString())));
}

}  // namespace

void registerNumbers(pyb::module_& m) {
  pyb::class_<Exact>(m, "Exact",
                     "An exact real number of Q(cos 2*pi/N): rationals, square roots, cos/sin of "
                     "rational multiples of pi.\nExact(value) takes an int, float (its exact "
                     "binary value), fractions.Fraction or a string such as '1/3', 'sqrt(2)' or "
                     "'cos(2*pi/5)'.")
      .def(pyb::init([](pyb::handle value) { return toExact(value); }), pyb::arg("value") = 0)
      .def_static("parse", &Exact::parse, pyb::arg("text"))
      .def_static("sqrt", &Exact::sqrt, pyb::arg("k"))
      .def_static("cos_pi", &Exact::cosPi, pyb::arg("p"), pyb::arg("q"), "cos(p*pi/q)")
      .def_static("sin_pi", &Exact::sinPi, pyb::arg("p"), pyb::arg("q"), "sin(p*pi/q)")
      .def("__str__", &Exact::toString)
      .def("__repr__", [](const Exact& x) { return "Exact('" + x.toString() + "')"; })
      .def("__float__", &Exact::toDouble)
      .def("__bool__", [](const Exact& x) { return !x.isZero(); })
      .def("__hash__", &hashOf)
      .def("is_rational", &Exact::isRational)
      .def("is_integer", &Exact::isInteger)
      .def("to_fraction", &toFraction, "fractions.Fraction of a rational value")
      .def_property_readonly("conductor", &Exact::conductor,
                             "N of the field Q(cos 2*pi/N) the value lives in")
      .def("__eq__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x == y; });
           })
      .def("__ne__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return !(x == y); });
           })
      .def("__lt__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x < y; });
           })
      .def("__le__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x <= y; });
           })
      .def("__gt__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x > y; });
           })
      .def("__ge__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x >= y; });
           })
      .def("__add__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x + y; });
           })
      .def("__radd__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return y + x; });
           })
      .def("__sub__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x - y; });
           })
      .def("__rsub__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return y - x; });
           })
      .def("__mul__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x * y; });
           })
      .def("__rmul__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return y * x; });
           })
      .def("__truediv__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return x / y; });
           })
      .def("__rtruediv__",
           [](const Exact& a, pyb::handle o) {
             return binary(a, o, [](const Exact& x, const Exact& y) { return y / x; });
           })
      .def("__neg__", [](const Exact& x) { return -x; })
      .def("__pos__", [](const Exact& x) { return x; })
      .def("__abs__", [](const Exact& x) { return x.sign() < 0 ? -x : x; })
      .def(pyb::pickle([](const Exact& x) { return x.toString(); },
                       [](const std::string& s) { return Exact::parse(s); }));

  pyb::class_<ExactMatrix>(m, "ExactMatrix",
                           "Sparse exact matrix (the storage of lsrl.Matrix in SYMBOLIC mode).")
      .def(pyb::init([](pyb::handle value) { return toExactMatrix(value); }), pyb::arg("value"))
      // `what` names the caller in messages ("Matrix.eye: dim must be between ...").
      .def_static(
          "identity",
          [](pyb::handle dim, pyb::handle scale, const std::string& what) {
            return ExactMatrix::identity(side(dim, what + ": dim"), toExact(scale));
          },
          pyb::arg("dim"), pyb::arg("scale") = 1, pyb::arg("what") = "ExactMatrix.identity")
      .def_static(
          "filled",
          [](pyb::handle rows, pyb::handle cols, pyb::handle value, const std::string& what) {
            const auto [r, c] = shape(rows, cols, what);
            return ExactMatrix::filled(r, c, toExact(value));
          },
          pyb::arg("rows"), pyb::arg("cols"), pyb::arg("value"),
          pyb::arg("what") = "ExactMatrix.filled")
      .def_static(
          "zeros",
          [](pyb::handle rows, pyb::handle cols, const std::string& what) {
            const int r = side(rows, what + ": rows");  // rows first: named first if both bad
            return ExactMatrix(r, side(cols, what + ": cols"));
          },
          pyb::arg("rows"), pyb::arg("cols"), pyb::arg("what") = "ExactMatrix.zeros")
      .def_static("from_entries", &fromEntries, pyb::arg("rows"), pyb::arg("cols"),
                  pyb::arg("entries"), "rows x cols with the (row, col, value) entries given")
      .def_static(
          "selection",
          [](pyb::handle start, pyb::handle end, pyb::handle inputDim, const std::string& what) {
            const int d = side(inputDim, what + ": input_dim");
            const auto s = static_cast<int>(integerArgument(start, what + ": start", 0, d));
            const auto e = static_cast<int>(integerArgument(end, what + ": end", s, d));
            return ExactMatrix::selection(s, e, d);
          },
          pyb::arg("start"), pyb::arg("end"), pyb::arg("input_dim"),
          pyb::arg("what") = "ExactMatrix.selection")
      .def_static("hstack", &ExactMatrix::hstack)
      .def_static("vstack", &ExactMatrix::vstack)
      .def_static("block_diagonal", &blockDiagonal)
      .def_property_readonly("rows", &ExactMatrix::rows)
      .def_property_readonly("cols", &ExactMatrix::cols)
      .def_property_readonly("nnz", &ExactMatrix::nonZeros)
      .def_property_readonly("conductor", &ExactMatrix::conductor)
      .def("at", &ExactMatrix::at)
      .def("transpose", &transpose)
      .def("submatrix", &submatrix)
      .def("matmul", [](const ExactMatrix& a, const ExactMatrix& b) { return a * b; })
      .def("add", [](const ExactMatrix& a,
                     const ExactMatrix& b) { return combine(a, b, Exact(1), "sum"); })
      .def("sub", [](const ExactMatrix& a,
                     const ExactMatrix& b) { return combine(a, b, Exact(-1), "difference"); })
      .def("scaled", [](const ExactMatrix& a, pyb::handle s) { return a.scaled(toExact(s)); })
      .def("hadamard",
           [](const ExactMatrix& a, const ExactMatrix& b) {
             if (a.rows() != b.rows() || a.cols() != b.cols())
               throw Error("element-wise product: shapes differ");
             std::vector<ExactMatrix::Entry> e;
             for (auto x : a.entries()) {
               x.value *= b.at(x.row, x.col);
               e.push_back(std::move(x));
             }
             return ExactMatrix::fromEntries(a.rows(), a.cols(), std::move(e));
           })
      .def("numpy", &toNumpy, "float64 array (nearest doubles)")
      .def("tolist", &toStringLists, "nested lists of exact strings")
      .def("entries",
           [](const ExactMatrix& a) {
             pyb::list out;
             for (const auto& e : a.entries()) out.append(pyb::make_tuple(e.row, e.col, e.value));
             return out;
           })
      .def(
          "__eq__", [](const ExactMatrix& a, const ExactMatrix& b) { return a == b; },
          pyb::is_operator())
      .def(pyb::pickle(
          [](const ExactMatrix& a) {
            pyb::list entries;
            for (const auto& e : a.entries())
              entries.append(pyb::make_tuple(e.row, e.col, e.value.toString()));
            return pyb::make_tuple(a.rows(), a.cols(), entries);
          },
          [](const pyb::tuple& t) {
            std::vector<ExactMatrix::Entry> e;
            for (const auto& x : t[2].cast<pyb::list>()) {
              const auto entry = x.cast<pyb::tuple>();
              e.push_back({entry[0].cast<int>(), entry[1].cast<int>(),
                           Exact::parse(entry[2].cast<std::string>())});
            }
            return ExactMatrix::fromEntries(t[0].cast<int>(), t[1].cast<int>(), std::move(e));
          }));
}

}  // namespace lsrl::py
