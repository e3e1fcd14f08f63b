#include "app/cli/warn_once.h"

#include <iostream>
#include <mutex>
#include <set>

namespace lsrl::cli {

void warnOnce(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> printed;
  if (message.empty()) return;
  const std::lock_guard<std::mutex> lock(mutex);
  if (printed.insert(message).second) std::cerr << "lsrl: warning: " << message << "\n";
}

}  // namespace lsrl::cli
