// Atomic file writes: the content goes to a temporary file in the target's folder,
// is flushed, then renamed over the target, so a crash never leaves half a file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace lsrl {

// What a read or a write does with a symbolic link at the path itself: follows it (the
// files the user names), or refuses it (the files the tools keep on their own, which must
// never lead out of their folder: core/util/hint_file.h).
enum class Links { Follow, Refuse };

// Throws lsrl::Error naming the path and the system error on failure; the temporary
// file is removed then. Only regular files are replaced: a FIFO, device or socket at `path`
// is refused, and a symbolic link is written through (the file it names is replaced), or
// refused with Links::Refuse.
// Temporary files left by writes to the same path that were killed are removed.
void writeFileAtomically(const std::string& path, std::string_view content,
                         Links links = Links::Follow);
// The checks writeFileAtomically makes before it writes, for a long job to make before it
// starts: the target is a writable regular file or absent, and its folder exists and is
// writable. Throws lsrl::Error naming the path.
void checkOutputPath(const std::string& path);

// The same, piece by piece, for content too big to hold in memory: the pieces go to the
// temporary file as they come, and commit() flushes and renames it. Destroyed without a
// commit (an error, a cancel), the temporary file is removed and the target is untouched.
class AtomicFileWriter {
 public:
  // Checks the target as above.
  explicit AtomicFileWriter(const std::string& path, Links links = Links::Follow);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view bytes);
  // Renames the temporary file over the path given to the constructor or, when
  // `finalName` is given, over that name in the same folder (for a name known only at the
  // end, such as one made from the content's hash).
  void commit(const std::string& finalName = "");

 private:
  std::string what() const;

  std::string requestedPath_;
  std::string path_;      // the file replaced (a symbolic link's target)
  std::string tempPath_;  // empty once renamed or never created
  Links links_;
  std::optional<mode_t> targetMode_;
  int fd_ = -1;
};

constexpr uint64_t kNoSizeLimit = std::numeric_limits<uint64_t>::max();

// Regular files only (a FIFO or device is refused instead of blocking or reading forever),
// of at most `maxBytes`; throws lsrl::Error naming the path.
std::string readWholeFile(const std::string& path, uint64_t maxBytes = kNoSizeLimit,
                          Links links = Links::Follow);

// True for "<name>.tmp-<pid>-<random>", the temporary file of a write (above) whose process
// <pid> no longer runs: a killed write left it.
bool isStaleTemporary(const std::string& fileName);

// The folder that holds `path`: "." for a bare file name, "/" for a file at the root.
std::string directoryOf(const std::string& path);

// The file a write to `path` replaces: `path`, or the file a symbolic link there names.
std::string resolveOutputPath(const std::string& path);

}  // namespace lsrl
