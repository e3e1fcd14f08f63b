// Integer arguments (sizes, widths, indices) checked before they reach the core: pybind's
// own int conversion answers 10**12 with "incompatible function arguments" and a negative
// size with whatever the allocator says.
#include <Python.h>

#include <string>

#include "app/python/bindings/common.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::py {

namespace {

// Integers wider than this many bits are named by their size: str() of a huge int is slow,
// and refused by Python past 4300 digits.
constexpr long long kMaxShownBits = 256;

std::string shownInteger(pyb::handle integer) {
  const long long bits = pyb::cast<long long>(integer.attr("bit_length")());
  if (bits > kMaxShownBits) return "an integer of " + std::to_string(bits) + " bits";
  return pyb::str(integer).cast<std::string>();
}

}  // namespace

long long integerArgument(pyb::handle value, const std::string& what, long long lo, long long hi) {
  PyObject* p = value.ptr();
  if (PyBool_Check(p) || !PyIndex_Check(p)) {
    const std::string type =
        pyb::str(pyb::type::handle_of(value).attr("__name__")).cast<std::string>();
    const std::string shown = pyb::repr(value).cast<std::string>();
    throw pyb::type_error(what + " must be an integer, got " + type + " " +
                          (shown.size() <= kMaxQuotedInput ? shown : quoteInput(shown)));
  }
  const pyb::object integer = pyb::reinterpret_steal<pyb::object>(PyNumber_Index(p));
  if (!integer) throw pyb::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (overflow == 0 && v == -1 && PyErr_Occurred()) throw pyb::error_already_set();
  if (overflow != 0 || v < lo || v > hi) {
    throw Error(what + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                ", got " + shownInteger(integer));
  }
  return v;
}

}  // namespace lsrl::py
