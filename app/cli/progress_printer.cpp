#include "app/cli/progress_printer.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace lsrl::cli {

ProgressPrinter::ProgressPrinter(std::string prefix, bool show)
    : prefix_(std::move(prefix)), show_(show), terminal_(::isatty(STDERR_FILENO) == 1) {}

ProgressPrinter::~ProgressPrinter() {
  if (printed_ && terminal_) std::cerr << "\n" << std::flush;
}

bool ProgressPrinter::wanted(bool flag) { return flag || ::isatty(STDERR_FILENO) == 1; }

bool ProgressPrinter::due() {
  const auto now = std::chrono::steady_clock::now();
  if (printed_ && now - last_ < std::chrono::milliseconds(200)) return false;
  last_ = now;
  return true;
}

void ProgressPrinter::print(const std::string& what) {
  printed_ = true;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", s);
  std::cerr << (terminal_ ? "\r" : "") << prefix_ << ": " << what << ", " << seconds << " s"
            << (terminal_ ? "   " : "\n") << std::flush;
}

}  // namespace lsrl::cli
