// Dropping the last reference to a big result (a compile with its replayable history: a
// million small allocations for tok2tok L=10) takes tens of milliseconds; on the GUI thread
// that is a frozen window. releaseInBackground hands the reference to a background thread
// that drops it there.
#pragma once

#include <functional>
#include <memory>
#include <utility>

namespace lsrl::studio {

// Runs `job` on the release thread (one thread, low priority; jobs run in order).
void runOnReleaseThread(std::function<void()> job);

template <class T>
void releaseInBackground(std::shared_ptr<T>&& p) {
  if (!p) return;
  runOnReleaseThread([p = std::move(p)]() mutable { p.reset(); });
}

}  // namespace lsrl::studio
