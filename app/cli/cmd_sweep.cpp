// lsrl sweep SPEC.json [--scheduler tcp://HOST:8786] [--out RESULTS.jsonl] [...]: runs a
// sweep spec's tasks on a Dask cluster (docs/sweeps.md; app/python/lsrl/sweep owns the options,
// their --help and the exit codes). This command replaces itself with Python running that
// module (app/cli/python_handover.h), with $LSRL_CLI naming this binary, so that the
// workers run the same `lsrl` as the command. The module handles Ctrl-C itself (it cancels
// the tasks in flight and exits 130); SIGTERM does the same.
#include <filesystem>
#include <ostream>
#include <system_error>
#include <utility>

#include "app/cli/commands.h"
#include "app/cli/python_handover.h"
#include "core/io/python_command.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

const PythonModule kSweep = {.command = "lsrl sweep",
                             .module = "lsrl.sweep",
                             .needs = "distributed",
                             .needsWhat = "sweeps need Dask's distributed",
                             .debianPackage = "python3-distributed",
                             .interrupts = PythonInterrupts::kKeyboardInterrupt};

}  // namespace

int cmdSweep(const Argv& args, std::ostream& out) {
  PythonHandover handover;
  std::error_code why;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", why);
  if (why) throw Error("cannot find this program's path (/proc/self/exe): " + why.message());
  out.flush();
  PythonCommand command = pythonModuleCommand(kSweep, args);
  command.env["LSRL_CLI"] = self.string();
  handover.exec(std::move(command), "the sweep");
}

}  // namespace lsrl::cli
