#include "app/cli/sigint_scope.h"

#include <atomic>

namespace lsrl::cli {

namespace {

std::atomic<bool> gInterrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void onSigint(int) { gInterrupted.store(true); }

}  // namespace

SigintScope::SigintScope() {
  gInterrupted.store(false);
  struct sigaction action {};
  action.sa_handler = onSigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second Ctrl-C terminates as usual
  sigaction(SIGINT, &action, &previous_);
}

SigintScope::~SigintScope() { sigaction(SIGINT, &previous_, nullptr); }

bool SigintScope::interrupted() { return gInterrupted.load(); }

}  // namespace lsrl::cli
