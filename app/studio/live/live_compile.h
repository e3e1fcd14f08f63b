// What the Live panel computes after every edit, Qt-free so that it runs on a worker
// thread: the program's outputs on the prompt (float64 or exact), then the compiled
// network's, the way `lsrl compile --precision` makes it: the program's big constants
// fitted to the prompt's domain (or, when asked, to the domain the file declares, as
// `lsrl compile` does by default; docs/precision.md), compiled with the float64 backend,
// once fitted for float64 and once for fp32, each run in its arithmetic, with the margin
// certificate's verdict. A target architecture, when one is picked, is built from the
// float64 network and run in float64. The float64 compile keeps its replayable history,
// so that the Debranching tab can play it without compiling again.
//
//   LiveRequest r;  r.program = program;  r.prompt = tokens;
//   LiveResult out = runLiveCompile(r, &cancel);  // throws lsrl::Cancelled when cancelled
//   out.text(LiveColumn::Fp32, t);                // "[9]"; out.differs(LiveColumn::Fp32, t)
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/graph/graph.h"
#include "core/io/declared_domain.h"
#include "core/targets/targets.h"

namespace lsrl::studio {

struct LiveRequest {
  Graph program;
  ExactSequence prompt;
  bool exactProgram = false;     // the program column in exact arithmetic
  std::optional<Target> target;  // a target column as well
  DeclaredDomain declared;       // the program file's (core/io/declared_domain.h)
  // Fit to `declared` when the prompt lies in it (slower: its horizon is long), instead of
  // the prompt's own domain.
  bool fitToDeclared = false;
  bool keepHistory = true;  // the float64 compile's replayable history
  // The threads the job starts run in the background (core/util/thread_priority.h); the
  // caller's own thread is the caller's to set.
  bool background = false;
};

// The columns of the panel, in order.
enum class LiveColumn { Program, Float64, Fp32, Target };
constexpr int kLiveColumns = 4;

// One compiled network: fitted for one arithmetic, compiled, run in it, certified.
struct LiveNetwork {
  std::vector<std::vector<double>> outputs;  // one row per token
  GraphSize size;
  int constantsFitted = 0;
  bool certified = false;
  std::string certificate;  // Certificate::summary()
  // Where the time went: the constants' fit, the compile, the run, the certificate.
  double fitSeconds = 0, compileSeconds = 0, runSeconds = 0, certifySeconds = 0;
  double seconds = 0;  // all of it
};

struct LiveResult {
  // The program did not validate (checkGraph): one message per problem, nothing ran.
  std::vector<std::string> problems;
  // The prompt does not fit the program (its width), or the program failed to run.
  std::string programError;
  // The compile, a network's run or the target failed (the program's column stands).
  std::string networkError;
  std::string targetError;

  std::vector<std::string> tokenTexts;  // the prompt, one text per token
  std::vector<std::vector<double>> programOutputs;
  std::vector<std::string> programTexts;  // exact texts when the program ran exact
  std::optional<LiveNetwork> float64;
  std::optional<LiveNetwork> fp32;
  std::optional<Target> target;
  std::vector<std::vector<double>> targetOutputs;
  std::string fittedTo;  // InputDomain::describe() of the domain the constants fit
  // Whose domain that is: "declared" (the file's), or "prompt"; when the declared one was
  // asked for but the prompt leaves it (or it does not parse), `notDeclared` says why.
  std::string fittedDomain;
  std::string notDeclared;
  double programSeconds = 0;  // the program's run
  // The float64 compile (history kept when asked for), for the Debranching tab.
  std::shared_ptr<const CompileResult> compile;
  double seconds = 0;

  bool ok() const { return problems.empty() && programError.empty(); }
  int tokens() const { return static_cast<int>(tokenTexts.size()); }
  // The text shown in a column at token t ("" where that column has no value).
  std::string text(LiveColumn column, int t) const;
  // Whether a network column shows another value than the program at token t: they are
  // compared as shown (formatDouble, 6 significant digits), which is what a person reads.
  bool differs(LiveColumn column, int t) const;
  // Tokens where any network column differs from the program.
  std::vector<int> differingTokens() const;
};

// Runs the whole job. Throws lsrl::Cancelled when `cancel` is set on the way; every other
// failure is recorded in the result.
LiveResult runLiveCompile(const LiveRequest& request, const std::atomic<bool>* cancel = nullptr);

// "+3 state dims, −2 layers, +40 non-zeros", or "same size" (before: the last good compile).
std::string sizeChange(const GraphSize& before, const GraphSize& after);

}  // namespace lsrl::studio
