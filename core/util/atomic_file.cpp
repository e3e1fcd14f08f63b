#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include "core/util/error.h"

namespace lsrl {

namespace {

std::string systemError(int err) { return std::strerror(err); }

std::string quote(const std::string& path) { return "\"" + path + "\""; }

std::string randomSuffix() {
  static std::atomic<unsigned long long> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   (static_cast<unsigned long long>(::getpid()) << 32)};
  const unsigned long long r = rng() ^ counter.fetch_add(1, std::memory_order_relaxed);
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 12; ++i) s += kHex[(r >> (4 * i)) & 0xF];
  return s;
}

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Removes the temporary file on scope exit unless released.
class TempFile {
 public:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  int& fd() { return fd_; }
  void release() { path_.clear(); }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

void writeFileAtomically(const std::string& path, std::string_view content) {
  if (path.empty()) throw Error("cannot save a file with an empty path");
  const std::string what = "cannot save " + quote(path);

  struct stat target {};
  const bool targetExists = ::stat(path.c_str(), &target) == 0;
  if (targetExists && S_ISDIR(target.st_mode)) {
    throw Error(what + ": it is a directory");
  }
  // Replacing by rename would succeed over a read-only file (and root ignores modes), so
  // a file marked read-only is refused explicitly, as editors do.
  if (targetExists && S_ISREG(target.st_mode) &&
      (target.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    throw Error(what +
                ": the file is read-only (no write permission for anyone); "
                "make it writable or save under another name");
  }

  TempFile temp(path + ".tmp-" + std::to_string(::getpid()) + "-" + randomSuffix());
  temp.fd() = ::open(temp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (temp.fd() < 0) {
    const int err = errno;
    temp.release();  // nothing was created
    throw Error(what + ": cannot create a temporary file in " + quote(directoryOf(path)) + ": " +
                systemError(err));
  }
  // Keep the permissions of a file we replace.
  if (targetExists && S_ISREG(target.st_mode)) {
    (void)::fchmod(temp.fd(), target.st_mode & 07777);
  }

  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(temp.fd(), data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(what + ": writing " + quote(temp.path()) + " failed: " + systemError(errno));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(temp.fd()) != 0) {
    throw Error(what + ": flushing " + quote(temp.path()) +
                " to disk failed: " + systemError(errno));
  }
  const int fd = temp.fd();
  temp.fd() = -1;
  if (::close(fd) != 0) {
    throw Error(what + ": closing " + quote(temp.path()) + " failed: " + systemError(errno));
  }
  if (::rename(temp.path().c_str(), path.c_str()) != 0) {
    throw Error(what + ": renaming the temporary file over it failed: " + systemError(errno));
  }
  temp.release();

  // Make the rename itself durable (best effort: some file systems refuse).
  const int dir = ::open(directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

std::string readWholeFile(const std::string& path) {
  const std::string what = "cannot read " + quote(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw Error(what + ": no such file");
    throw Error(what + ": " + systemError(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error(what + ": " + systemError(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(what + ": it is a directory, not a file");
  }
  std::string out;
  if (S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw Error(what + ": " + systemError(err));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace lsrl
