// Atomic file writes: the content goes to a temporary file in the target's folder,
// is flushed, then renamed over the target, so a crash never leaves half a file.
#pragma once

#include <string>
#include <string_view>

namespace lsrl {

// Throws lsrl::Error naming the path and the system error on failure; the temporary
// file is removed then.
void writeFileAtomically(const std::string& path, std::string_view content);
std::string readWholeFile(const std::string& path);  // throws lsrl::Error naming the path

}  // namespace lsrl
