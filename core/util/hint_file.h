// Files the tools keep on their own, not files the user names: the scan-schedule cache
// (core/gpu/scan_calibration.h), the explorer's recovery files. They are hints, never
// failures: one that is a directory, a FIFO, a device, a symbolic link, unreadable,
// malformed or oversized is ignored with one warning naming it, and the work goes on as if
// there were none. It is never opened blocking, never read past its size limit, and never
// written through a symbolic link (which could lead out of its folder).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lsrl {

struct HintFileRead {
  std::optional<std::string> content;  // the bytes, when the file is there and usable
  std::string warning;                 // why it was ignored; empty when read or absent
};

// Reads `path` (a missing file is no warning). `what` names the file in the warning: "the
// scan-schedule cache" gives `the scan-schedule cache is ignored: cannot read "/c/x.json":
// it is a directory, not a file`.
HintFileRead readHintFile(const std::string& path, uint64_t maxBytes, std::string_view what);

// The warning for a hint file read but unusable: `<what> is ignored: "<path>" <problem>`,
// e.g. with problem "is not valid JSON" (the path quoted as every file message quotes it).
std::string ignoredHintWarning(std::string_view what, const std::string& path,
                               std::string_view problem);

// Replaces `path` atomically (core/util/atomic_file.h) when it is absent or a regular
// file; a symbolic link, directory, FIFO or device there is left alone. Returns why it was
// not written, empty when it was.
std::string writeHintFile(const std::string& path, std::string_view content);

}  // namespace lsrl
