// Independent items on the machine's cores: body(i) for i in [0, n), in chunks that threads
// take in turn. For host work done per sequence of a batch (the seed models' float64
// layers around their device kernels, docs/vulkan.md "Where the time goes"), which one
// thread did while every other core sat idle.
#pragma once

#include <cstddef>
#include <functional>

namespace lsrl {

// Runs body(0) … body(n − 1), each exactly once, on up to `threads` threads (0: the
// hardware's; 1, or n ≤ 1: on the calling thread). When bodies throw, the exception of the
// lowest index is rethrown after every thread has finished, so the error a caller sees
// does not depend on the timing.
void parallelFor(size_t n, const std::function<void(size_t)>& body, unsigned threads = 0);

}  // namespace lsrl
