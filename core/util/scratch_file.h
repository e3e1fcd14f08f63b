// A scratch file with no name: data too big to hold in memory (a compile history's
// payloads, a sidecar's tensors) waits on disk until it is copied into the real file.
// Having no name, it disappears with its process, even a killed one, so nothing is ever
// left behind.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace lsrl {

class ScratchFile {
 public:
  // In `folder` (the destination's, so that the data stays on the disk it goes to):
  // O_TMPFILE where the file system has it, else a file unlinked as soon as it is open.
  // Throws lsrl::Error naming the folder.
  explicit ScratchFile(const std::string& folder);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  void append(std::string_view bytes);  // throws lsrl::Error (disk full, ...)
  uint64_t size() const { return size_; }
  // Hands the content to `piece` in order, in pieces of at most 1 MiB.
  void readBack(const std::function<void(std::string_view)>& piece) const;

 private:
  std::string folder_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace lsrl
