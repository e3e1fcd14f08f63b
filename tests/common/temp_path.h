// Paths in the system's temporary folder, for tests that write files and read them back.
#pragma once

#include <filesystem>
#include <string>

namespace lsrl::testing_common {

// <temp>/<prefix><name>; each test file passes its own prefix, so that test files run in
// parallel never write the same file.
inline std::string tempPath(const std::string& prefix, const std::string& name) {
  return (std::filesystem::temp_directory_path() / (prefix + name)).string();
}

}  // namespace lsrl::testing_common
