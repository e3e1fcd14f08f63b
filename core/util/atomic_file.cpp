#include "core/util/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
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

// "a named pipe (FIFO)" etc. for a file that is not a regular file or a directory.
std::string kindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// The temporary files of writes to `path` that were killed before their rename
// ("<name>.tmp-<pid>-<random>", see below): removed when no process <pid> runs any more.
void removeStaleTemporaries(const std::string& path) {
  const std::string dir = directoryOf(path);
  const size_t slash = path.find_last_of('/');
  const std::string target = slash == std::string::npos ? path : path.substr(slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(".tmp-") == target.size() && name.compare(0, target.size(), target) == 0 &&
        isStaleTemporary(name))
      (void)::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

}  // namespace

bool isStaleTemporary(const std::string& fileName) {
  const size_t at = fileName.rfind(".tmp-");
  if (at == std::string::npos || at == 0) return false;
  const std::string rest = fileName.substr(at + 5);
  const size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash > 9) return false;
  if (rest.find_first_not_of("0123456789") != dash) return false;
  const auto pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

std::string resolveOutputPath(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return path;
  // A symbolic link is written through: the file it names is replaced, the link stays.
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) {
    throw Error("cannot save " + quote(path) +
                ": it is a symbolic link to a missing file or folder; remove the link or "
                "save under another name");
  }
  std::string resolved = real;
  std::free(real);
  return resolved;
}

namespace {

// The mode of the file a write to `path` replaces (nullopt for a new file); throws
// lsrl::Error unless that is a writable regular file.
std::optional<mode_t> requireWritableTarget(const std::string& path) {
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) return std::nullopt;  // a new file
  if (S_ISDIR(target.st_mode)) throw Error("cannot save " + quote(path) + ": it is a directory");
  if (!S_ISREG(target.st_mode)) {
    throw Error("cannot save " + quote(path) + ": it is " + kindOf(target.st_mode) +
                ", not a regular file; lsrl only replaces regular files");
  }
  // Replacing by rename would succeed over a read-only file (and root ignores modes), so
  // a file marked read-only is refused explicitly, as editors do.
  if ((target.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    throw Error("cannot save " + quote(path) +
                ": the file is read-only (no write permission for anyone); "
                "make it writable or save under another name");
  }
  return target.st_mode;
}

}  // namespace

void writeFileAtomically(const std::string& requestedPath, std::string_view content) {
  if (requestedPath.empty()) throw Error("cannot save a file with an empty path");
  const std::string path = resolveOutputPath(requestedPath);
  const std::string what = "cannot save " + quote(requestedPath);
  const std::optional<mode_t> targetMode = requireWritableTarget(path);
  removeStaleTemporaries(path);

  TempFile temp(path + ".tmp-" + std::to_string(::getpid()) + "-" + randomSuffix());
  temp.fd() = ::open(temp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (temp.fd() < 0) {
    const int err = errno;
    temp.release();  // nothing was created
    throw Error(what + ": cannot create a temporary file in " + quote(directoryOf(path)) + ": " +
                systemError(err));
  }
  // Keep the permissions of a file we replace.
  if (targetMode) {
    (void)::fchmod(temp.fd(), *targetMode & 07777);
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
  // Non-blocking, so that opening a FIFO does not wait for a writer; refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(what + ": it is " + kindOf(st.st_mode) +
                ", not a regular file (lsrl reads files whole, so it needs a regular file)");
  }
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out;
  if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
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
