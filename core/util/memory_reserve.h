// A reserve of memory for reporting that memory ran out. Destructors that run while a
// std::bad_alloc unwinds may allocate themselves (a big JSON document's does, in a
// destructor that must not throw: a second failure there ends the process with
// std::terminate), and so does the message that names what was being built
// (core/util/out_of_memory.h). The first allocation that fails frees the reserve and
// still fails, so both have room.
#pragma once

#include <cstddef>

namespace lsrl {

// Sets the reserve aside (address space only: it is never touched) and installs the
// new-handler that frees it. For a program's start; a second call does nothing.
void keepMemoryReserve(size_t bytes);

}  // namespace lsrl
