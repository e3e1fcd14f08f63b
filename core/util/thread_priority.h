// Background work that must not take the CPU from an interactive thread: a worker lowers
// its own scheduling priority (a nice value on Linux, per thread) before it starts. On a
// machine with as many busy workers as cores, the event loop's thread then still gets the
// CPU as soon as it has something to do.
#pragma once

namespace lsrl {

// The nice value background threads run at.
constexpr int kBackgroundNice = 10;

// Lowers the calling thread's priority to kBackgroundNice (no change when it is that low
// already; no-op where the platform has no per-thread nice). A thread cannot raise it
// again without privileges: call it on threads that do background work only.
void runThisThreadInBackground();

}  // namespace lsrl
