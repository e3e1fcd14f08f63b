#include "core/util/scratch_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/util/error.h"
#include "core/util/fd_write.h"

namespace lsrl {

namespace {

constexpr size_t kReadChunk = size_t{1} << 20;

int openScratchFile(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = folder + "/.lsrl-scratch-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    throw Error("cannot create a scratch file in \"" + folder + "\": " + std::strerror(errno));
  }
  ::unlink(name.c_str());
  return fd;
}

}  // namespace

ScratchFile::ScratchFile(const std::string& folder)
    : folder_(folder.empty() ? "." : folder), fd_(openScratchFile(folder_)) {}

ScratchFile::~ScratchFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ScratchFile::append(std::string_view bytes) {
  if (!writeAllToFd(fd_, bytes.data(), bytes.size())) {
    throw Error("cannot write to the scratch file in \"" + folder_ + "\": " + std::strerror(errno) +
                " (after " + std::to_string(size_) + " bytes)");
  }
  size_ += bytes.size();
}

void ScratchFile::readBack(const std::function<void(std::string_view)>& piece) const {
  std::string chunk(kReadChunk, '\0');
  for (uint64_t at = 0; at < size_;) {
    const ssize_t n = ::pread(fd_, chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error("cannot read back the scratch file in \"" + folder_ + "\" at byte " +
                  std::to_string(at) + ": " + (n < 0 ? std::strerror(errno) : "it is shorter"));
    }
    piece(std::string_view(chunk.data(), static_cast<size_t>(n)));
    at += static_cast<uint64_t>(n);
  }
}

}  // namespace lsrl
