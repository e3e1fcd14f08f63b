// The message of the lsrl::Error a call throws, for tests that check what an error says.
#pragma once

#include <functional>
#include <string>

#include "core/util/error.h"

namespace lsrl::testing_common {

// e.what() of the lsrl::Error that `f` throws; "<no error>" when it throws none.
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace lsrl::testing_common
