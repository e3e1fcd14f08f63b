#include <iostream>

#include "app/cli/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return lsrl::cli::runCli(args, std::cout, std::cerr);
}
