// What `lsrl run` does with a value that is not finite inside a float run (an overflow to
// ±infinity, or NaN; core/util/nonfinite.h): by default it refuses the run, naming the first
// place it happened (sequence, token, node or layer), so that no wrong answer is printed as
// one; with --allow-nonfinite it keeps the outputs ("inf"/"nan" strings) and warns once on
// stderr. docs/input-format.md, "Non-finite values", describes where each backend checks.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/util/nonfinite.h"

namespace lsrl::cli {

class NonFiniteWatch {
 public:
  // `arithmetic`: "float64", "fp32" or "fp64", for the message. `withSequence`: the input
  // holds a batch, so messages name the sequence. `graph` (a program or compiled model's,
  // may be null for weights) names the nodes of executor sites and replays fp64 runs.
  NonFiniteWatch(bool allow, std::string arithmetic, bool withSequence,
                 const Graph* graph = nullptr);

  bool allowed() const { return allow_; }

  // A site of the run, its sequence counted in the whole input: kept when the earliest yet.
  void offer(NonFiniteSite site);
  // The first non-finite value of one sequence's output rows, for runners that keep no
  // inner values (a target's float64 weights): where = "the output".
  void offerOutputs(size_t sequence, const std::vector<std::vector<double>>& rows);
  // Throws the refusal when a site was found and --allow-nonfinite was not given. Runs that
  // go through the input in order call it after each block, so that a refused run stops
  // before anything more is written.
  void refuseIfFound() const;
  // At the end of the run: refuseIfFound(), or the warning on `warnings` when allowed.
  void finish(std::ostream& warnings) const;

  // The first non-finite value of one sequence ([token][feature]) on the float64 executor
  // of the graph: the CPU twin of a Vulkan fp64 run. Null without a graph or when the
  // float64 run stays finite.
  std::optional<NonFiniteSite> replayInFloat64(
      const std::vector<std::vector<double>>& tokens) const;

 private:
  bool allow_;
  std::string arithmetic_;
  bool withSequence_;
  const Graph* graph_;
  std::optional<NonFiniteSite> first_;
};

}  // namespace lsrl::cli
