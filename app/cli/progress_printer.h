// Progress of a long command on stderr: on a terminal one line rewritten in place, else
// (with --progress) a line at a time; at most every 200 ms, so that calling it per step
// or per token costs a clock read.
#pragma once

#include <chrono>
#include <string>

namespace lsrl::cli {

class ProgressPrinter {
 public:
  // `prefix`: "lsrl run". `show`: --progress given, or stderr is a terminal.
  ProgressPrinter(std::string prefix, bool show);
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // Prints "<prefix>: <describe()>, 12.3 s" when a line is due; describe() is called only then.
  template <class Describe>
  void update(Describe&& describe) {
    if (show_ && due()) print(describe());
  }
  // The last line ("1,000,000 tokens"), printed whether due or not.
  void finish(const std::string& what) {
    if (show_) print(what);
  }
  // Whether stderr is a terminal or --progress was given (the usual `show`).
  static bool wanted(bool flag);

 private:
  bool due();
  void print(const std::string& what);

  std::string prefix_;
  bool show_;
  bool terminal_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_;
};

}  // namespace lsrl::cli
