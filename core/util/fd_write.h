// Writing a whole buffer to a file descriptor, retrying short writes and EINTR, with only
// async-signal-safe calls (usable in a forked copy of a threaded process). Gives up when
// the reader is gone or the disk is full: false then, with errno set.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace lsrl {

inline bool writeAllToFd(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) errno = ENOSPC;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

}  // namespace lsrl
