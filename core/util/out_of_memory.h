// Running out of memory, said with what was being built: "out of memory while reading the
// input file "big.json" (15,000,012 bytes)" rather than a bare "std::bad_alloc". The
// natural places (loading a model, compiling a program, building a run's buffers) wrap
// their work in whileBuilding; the CLI reports the OutOfMemory like any other error.
#pragma once

#include <new>
#include <string>
#include <utility>

#include "core/util/error.h"

namespace lsrl {

class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Runs `work`; a std::bad_alloc from it becomes OutOfMemory "out of memory while <what>".
// Nested calls keep the innermost name (an OutOfMemory passes through), the most precise.
template <class Work>
decltype(auto) whileBuilding(const std::string& what, Work&& work) {
  try {
    return std::forward<Work>(work)();
  } catch (const std::bad_alloc&) {
    // The failed request is unwound by now, so this small message can be allocated.
    throw OutOfMemory("out of memory while " + what);
  }
}

}  // namespace lsrl
