// Ctrl-C for long commands: while a SigintScope lives, SIGINT only sets a flag that the
// work polls (e.g. from CompileOptions::progress) so that it can stop cleanly, write no
// partial files and exit with 130. A second Ctrl-C gets the default action (terminate).
#pragma once

#include <csignal>

namespace lsrl::cli {

class SigintScope {
 public:
  SigintScope();
  ~SigintScope();
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

  // True once SIGINT arrived during this scope.
  static bool interrupted();

 private:
  struct sigaction previous_ {};
};

}  // namespace lsrl::cli
