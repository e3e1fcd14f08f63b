// Checks what an lsrl::Error says: that `f` throws one naming `kernel` and containing
// `part` (the kernels' input checks name themselves and the expected vs actual value).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/util/error.h"

namespace lsrl::testing_common {

template <class F>
void expectError(F f, const std::string& kernel, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error (" << part << ")";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(kernel), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

}  // namespace lsrl::testing_common
