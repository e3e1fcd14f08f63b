#include <signal.h>

#include <iostream>

#include "app/cli/cli.h"
#include "core/util/memory_reserve.h"

int main(int argc, char** argv) {
  // Under a file-size limit (ulimit -f) a write that passes it fails with EFBIG, which the
  // writers report ("... failed: File too large") and clean up after, instead of SIGXFSZ
  // killing the process mid-write with no message and a temporary file left.
  ::signal(SIGXFSZ, SIG_IGN);
  // Room to unwind and report an out-of-memory failure (a JSON document of 4M values
  // needs 64 MiB to be freed).
  lsrl::keepMemoryReserve(size_t{64} << 20);
  std::vector<std::string> args(argv + 1, argv + argc);
  return lsrl::cli::runCli(args, std::cout, std::cerr);
}
