// Entry point of the `lsrl` command-line tool, callable in-process by tests.
// Results go to `out`, diagnostics to `err`; the return value is the exit code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace lsrl::cli {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lsrl::cli
