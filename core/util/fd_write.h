// Writing a whole buffer to a file descriptor, retrying short writes and EINTR, with only
// async-signal-safe calls (usable in a forked copy of a threaded process). Gives up
// silently when the reader is gone: the callers report through the exit status.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace lsrl {

inline void writeAllToFd(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    p += k;
    n -= static_cast<size_t>(k);
  }
}

}  // namespace lsrl
