#include "core/util/memory_reserve.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace lsrl {

namespace {

std::atomic<void*> reserve{nullptr};

// Called by operator new when an allocation fails: the request fails either way (the
// reserve is for what reports it, not for the work), with the reserve freed the first time.
[[noreturn]] void releaseReserveAndFail() {
  std::free(reserve.exchange(nullptr));
  throw std::bad_alloc();
}

}  // namespace

void keepMemoryReserve(size_t bytes) {
  if (reserve.load() != nullptr) return;
  void* block = std::malloc(bytes);
  if (block == nullptr) return;  // no room even for that: go on without
  void* expected = nullptr;
  if (!reserve.compare_exchange_strong(expected, block)) {
    std::free(block);
    return;
  }
  std::set_new_handler(releaseReserveAndFail);
}

}  // namespace lsrl
