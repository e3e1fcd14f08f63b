// An advisory lock on a folder (flock on the folder itself), for files written in pairs:
// a model or history JSON and the sidecar it names (docs/model-format.md, "Concurrent
// writers"). Writers hold it exclusively from the sidecar's write to the removal of the
// superseded sidecars, readers shared while they read the JSON and then its sidecar, so
// no writer's clean-up removes a sidecar another writer's JSON names, and no reader sees
// a JSON whose sidecar a writer has just removed.
#pragma once

#include <string>

namespace lsrl {

class FolderLock {
 public:
  enum class Kind { Shared, Exclusive };

  // Locks the folder that holds `pathInFolder`, waiting for other holders. Where the
  // folder cannot be opened or locked (no read permission, a file system without flock),
  // it goes on without the lock: the pair is then as safe as with one writer.
  FolderLock(const std::string& pathInFolder, Kind kind);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace lsrl
