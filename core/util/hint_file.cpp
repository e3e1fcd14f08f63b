#include "core/util/hint_file.h"

#include <sys/stat.h>

#include <cerrno>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

std::string ignored(std::string_view what, std::string_view why) {
  return std::string(what) + " is ignored: " + std::string(why);
}

}  // namespace

std::string ignoredHintWarning(std::string_view what, const std::string& path,
                               std::string_view problem) {
  // Long paths keep their end, the file's name, as in core/util/atomic_file.cpp.
  return ignored(what, quotePath(path) + " " + std::string(problem));
}

HintFileRead readHintFile(const std::string& path, uint64_t maxBytes, std::string_view what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return {};
  try {
    return {readWholeFile(path, maxBytes, Links::Refuse), ""};
  } catch (const Error& e) {
    return {std::nullopt, ignored(what, e.what())};
  }
}

std::string writeHintFile(const std::string& path, std::string_view content) {
  try {
    writeFileAtomically(path, content, Links::Refuse);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace lsrl
