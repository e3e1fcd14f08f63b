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
#include "core/util/quote_input.h"
#include "core/util/thousands.h"

namespace lsrl {

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

namespace {

std::string systemError(int err) { return std::strerror(err); }

// Paths are input too: a 10 KB name is quoted bounded, keeping its end (the file name).

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
    throw Error("cannot save " + quotePath(path) +
                ": it is a symbolic link to a missing file or folder; remove the link or "
                "save under another name");
  }
  std::string resolved = real;
  std::free(real);
  return resolved;
}

namespace {

// The mode of the file a write to `path` replaces (nullopt for a new file); throws
// lsrl::Error unless that is a writable regular file (with Links::Refuse, `path` itself:
// a symbolic link there is refused).
std::optional<mode_t> requireWritableTarget(const std::string& path, Links links) {
  struct stat target {};
  const int found =
      links == Links::Follow ? ::stat(path.c_str(), &target) : ::lstat(path.c_str(), &target);
  if (found != 0) return std::nullopt;  // a new file
  if (S_ISDIR(target.st_mode))
    throw Error("cannot save " + quotePath(path) + ": it is a directory");
  if (!S_ISREG(target.st_mode)) {
    throw Error("cannot save " + quotePath(path) + ": it is " + kindOf(target.st_mode) +
                ", not a regular file; lsrl only replaces regular files");
  }
  // Replacing by rename would succeed over a read-only file (and root ignores modes), so
  // a file marked read-only is refused explicitly, as editors do.
  if ((target.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    throw Error("cannot save " + quotePath(path) +
                ": the file is read-only (no write permission for anyone); "
                "make it writable or save under another name");
  }
  return target.st_mode;
}

}  // namespace

void checkOutputPath(const std::string& requestedPath) {
  if (requestedPath.empty()) throw Error("cannot save a file with an empty path");
  const std::string path = resolveOutputPath(requestedPath);
  (void)requireWritableTarget(path, Links::Follow);
  const std::string dir = directoryOf(path);
  struct stat folder {};
  if (::stat(dir.c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode))
    throw Error("cannot save " + quotePath(requestedPath) + ": the folder " + quotePath(dir) +
                " does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error("cannot save " + quotePath(requestedPath) + ": the folder " + quotePath(dir) +
                " is not writable: " + systemError(errno));
}

AtomicFileWriter::AtomicFileWriter(const std::string& requestedPath, Links links)
    : requestedPath_(requestedPath), links_(links) {
  if (requestedPath.empty()) throw Error("cannot save a file with an empty path");
  // With Links::Refuse the rename below replaces `path_` itself, which the check refuses
  // if it is a link: nothing is written through one.
  path_ = links == Links::Follow ? resolveOutputPath(requestedPath) : requestedPath;
  targetMode_ = requireWritableTarget(path_, links);
  removeStaleTemporaries(path_);
  tempPath_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + randomSuffix();
  fd_ = ::open(tempPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int err = errno;
    tempPath_.clear();  // nothing was created
    throw Error(what() + ": cannot create a temporary file in " + quotePath(directoryOf(path_)) +
                ": " + systemError(err));
  }
  // Keep the permissions of a file we replace.
  if (targetMode_) (void)::fchmod(fd_, *targetMode_ & 07777);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!tempPath_.empty()) ::unlink(tempPath_.c_str());
}

std::string AtomicFileWriter::what() const { return "cannot save " + quotePath(requestedPath_); }

void AtomicFileWriter::write(std::string_view bytes) {
  if (fd_ < 0) throw Error(what() + ": the file was already committed");
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(what() + ": writing failed: " + systemError(errno));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

void AtomicFileWriter::commit(const std::string& finalName) {
  if (fd_ < 0) throw Error(what() + ": the file was already committed");
  std::string target = path_;
  if (!finalName.empty()) {
    target = directoryOf(path_) + "/" + finalName;
    (void)requireWritableTarget(target, links_);
  }
  if (::fsync(fd_) != 0) {
    throw Error(what() + ": flushing it to disk failed: " + systemError(errno));
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    throw Error(what() + ": closing it failed: " + systemError(errno));
  }
  if (::rename(tempPath_.c_str(), target.c_str()) != 0) {
    throw Error(what() + ": renaming the temporary file over it failed: " + systemError(errno));
  }
  tempPath_.clear();

  // Make the rename itself durable (best effort: some file systems refuse).
  const int dir = ::open(directoryOf(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

void writeFileAtomically(const std::string& path, std::string_view content, Links links) {
  AtomicFileWriter file(path, links);
  file.write(content);
  file.commit();
}

std::string readWholeFile(const std::string& path, uint64_t maxBytes, Links links) {
  const std::string what = "cannot read " + quotePath(path);
  // Non-blocking, so that opening a FIFO does not wait for a writer; refused below.
  const int fd = ::open(
      path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (links == Links::Refuse ? O_NOFOLLOW : 0));
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw Error(what + ": no such file");
    if (err == ELOOP && links == Links::Refuse)
      throw Error(what + ": it is a symbolic link, which is not followed here");
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
  auto tooBig = [&](const std::string& size) {
    ::close(fd);
    return Error(what + ": it is " + size + " bytes, over the limit of " + withThousands(maxBytes) +
                 " bytes");
  };
  if (static_cast<uint64_t>(st.st_size) > maxBytes) throw tooBig(withThousands(st.st_size));
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out;
  if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const uint64_t room = maxBytes - out.size();  // one byte past it tells a grown file
    const ssize_t n = ::read(fd, buffer, room < sizeof buffer ? room + 1 : sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw Error(what + ": " + systemError(err));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
    if (out.size() > maxBytes) throw tooBig("at least " + withThousands(out.size()));  // it grew
  }
  ::close(fd);
  return out;
}

}  // namespace lsrl
