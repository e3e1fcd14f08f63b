// How much memory this process holds and the machine has (Linux: /proc/self/statm and
// sysconf): long work in the explorer (a compile with its replayable history) checks it
// and stops with a message before the system's out-of-memory killer ends the whole app.
#pragma once

#include <cstddef>

namespace lsrl {

// Resident set size of this process in bytes (0 when it cannot be read).
size_t residentBytes();

// Physical memory of the machine in bytes (0 when unknown).
size_t physicalMemoryBytes();

}  // namespace lsrl
