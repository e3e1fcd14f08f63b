#include "app/studio/common/background_release.h"

#include <QThreadPool>

#include "core/numbers/exact.h"
#include "core/util/thread_priority.h"

namespace lsrl::studio {

void runOnReleaseThread(std::function<void()> job) {
  // One thread, so that releases never compete with each other; destroyed at exit, after
  // the jobs queued have run.
  static QThreadPool pool;
  static const bool configured = [] {
    pool.setMaxThreadCount(1);
    return true;
  }();
  (void)configured;
  pool.start([job = std::move(job)] {
    const ExactThreadScope releaseCaches;  // the results hold exact numbers
    runThisThreadInBackground();
    job();
  });
}

}  // namespace lsrl::studio
