// Atomic file writes: the content goes to a temporary file in the target's folder,
// is flushed, then renamed over the target, so a crash never leaves half a file.
#pragma once

#include <string>
#include <string_view>

namespace lsrl {

// Throws lsrl::Error naming the path and the system error on failure; the temporary
// file is removed then. Only regular files are replaced: a FIFO, device or socket at `path`
// is refused, and a symbolic link is written through (the file it names is replaced).
// Temporary files left by writes to the same path that were killed are removed.
void writeFileAtomically(const std::string& path, std::string_view content);
// Regular files only (a FIFO or device is refused instead of blocking or reading forever);
// throws lsrl::Error naming the path.
std::string readWholeFile(const std::string& path);

// True for "<name>.tmp-<pid>-<random>", the temporary file of a write (above) whose process
// <pid> no longer runs: a killed write left it.
bool isStaleTemporary(const std::string& fileName);

// The file a write to `path` replaces: `path`, or the file a symbolic link there names.
std::string resolveOutputPath(const std::string& path);

}  // namespace lsrl
