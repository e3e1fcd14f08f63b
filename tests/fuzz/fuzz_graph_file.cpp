// Fuzzes graph-file loading and whole-graph checks: any bytes must either load
// or throw lsrl::Error, and a loaded graph must be checkable. Any other exception,
// crash, sanitizer report, hang or runaway allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/graph/checks.h"
#include "core/io/graph_file.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const lsrl::Graph g = lsrl::graphFromString(text);
    const std::vector<lsrl::Problem> problems = lsrl::checkGraph(g);
    (void)problems;
  } catch (const lsrl::Error&) {
    // Malformed input, reported as the API promises.
  }
  return 0;
}
