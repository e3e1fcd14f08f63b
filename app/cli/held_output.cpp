#include "app/cli/held_output.h"

#include <filesystem>
#include <string>
#include <system_error>

#include "core/util/error.h"

namespace lsrl::cli {

namespace {

constexpr std::streamoff kMaxPending = std::streamoff{1} << 20;

}  // namespace

HeldOutput::HeldOutput(std::ostream& out, bool hold) : out_(out), hold_(hold) {}

void HeldOutput::spillIfLarge() {
  if (hold_ && pending_.tellp() >= kMaxPending) spill();
}

void HeldOutput::spill() {
  if (!scratch_) {
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::temp_directory_path(error);
    if (error)
      throw Error("cannot hold the output until the run ends: no temp folder (" + error.message() +
                  "; set TMPDIR)");
    scratch_ = std::make_unique<ScratchFile>(folder.string());
  }
  scratch_->append(pending_.view());
  pending_.str(std::string());
}

void HeldOutput::release() {
  if (!hold_) return;
  if (scratch_) scratch_->readBack([this](std::string_view piece) { out_ << piece; });
  out_ << pending_.view();
  pending_.str(std::string());
  scratch_.reset();
}

}  // namespace lsrl::cli
