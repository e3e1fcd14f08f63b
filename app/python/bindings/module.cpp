// The `_lsrl` extension module: the C++ core under the `lsrl` package (app/python/lsrl).
// lsrl::Error messages reach Python verbatim as ValueError (the same text the CLI prints).
#include <cstring>

#include "app/python/bindings/common.h"
#include "core/util/error.h"

namespace {

// The message as a Python str; bytes that are not UTF-8 (a malformed file quoted in a
// parser's message) come through as \xNN escapes rather than losing the whole text.
void setPythonError(PyObject* type, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)),
                                        "backslashreplace");
  if (text == nullptr) return;  // decoding failed: Python's own error stands
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

}  // namespace

PYBIND11_MODULE(_lsrl, m) {
  m.doc() = "C++ core of the lsrl package (LSRL Studio)";
  lsrl::py::pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lsrl::Cancelled& e) {
      setPythonError(PyExc_KeyboardInterrupt, e.what());
    } catch (const lsrl::Error& e) {
      setPythonError(PyExc_ValueError, e.what());
    }
  });
  lsrl::py::registerNumbers(m);
  lsrl::py::registerGraph(m);
  lsrl::py::registerSugar(m);
  lsrl::py::registerProgram(m);
  lsrl::py::registerModels(m);
  lsrl::py::registerWeights(m);
  lsrl::py::registerLatticeScan(m);
}
