// Output held back until a run has succeeded: `lsrl run` streams its float64 rows as they
// are computed, but a value that is not finite later in the run refuses the whole answer
// (nonfinite_watch.h), so nothing may reach stdout before the end. The text waits in memory
// up to 1 MiB at a time, the rest in an unnamed scratch file in the temp folder
// (core/util/scratch_file.h), so memory stays bounded however long the run.
#pragma once

#include <memory>
#include <ostream>
#include <sstream>

#include "core/util/scratch_file.h"

namespace lsrl::cli {

class HeldOutput {
 public:
  // Without `hold`, stream() is `out` itself and nothing waits.
  HeldOutput(std::ostream& out, bool hold);

  std::ostream& stream() { return hold_ ? static_cast<std::ostream&>(pending_) : out_; }
  // Moves the pending text to the scratch file once it passes 1 MiB; call it now and then.
  void spillIfLarge();
  // Writes everything held to the real output (after the run succeeded).
  void release();

 private:
  void spill();

  std::ostream& out_;
  bool hold_;
  std::ostringstream pending_;
  std::unique_ptr<ScratchFile> scratch_;  // opened on the first spill
};

}  // namespace lsrl::cli
