#include "core/util/thread_priority.h"

#include <cerrno>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace lsrl {

void runThisThreadInBackground() {
#ifdef __linux__
  // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets that thread's.
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now < kBackgroundNice) (void)::setpriority(PRIO_PROCESS, tid, kBackgroundNice);
#endif
}

}  // namespace lsrl
