// Warnings about what the CLI went on without (an unusable scan-schedule cache): printed to
// stderr once per process however many runs meet the same problem (a benchmark opens the
// cache once per workload).
#pragma once

#include <string>

namespace lsrl::cli {

// Prints "lsrl: warning: <message>" unless the same message was printed before; an empty
// message prints nothing.
void warnOnce(const std::string& message);

}  // namespace lsrl::cli
