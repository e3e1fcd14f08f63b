#include "app/cli/nonfinite_watch.h"

#include <ostream>

#include "core/executor/executor.h"
#include "core/graph/node_description.h"
#include "core/util/error.h"

namespace lsrl::cli {

NonFiniteWatch::NonFiniteWatch(bool allow, std::string arithmetic, bool withSequence,
                               const Graph* graph)
    : allow_(allow),
      arithmetic_(std::move(arithmetic)),
      withSequence_(withSequence),
      graph_(graph) {}

void NonFiniteWatch::offer(NonFiniteSite site) {
  if (site.node >= 0 && graph_ != nullptr) site.where = describeNode(*graph_, site.node);
  keepEarliest(first_, site);
}

void NonFiniteWatch::offerOutputs(size_t sequence, const std::vector<std::vector<double>>& rows) {
  for (size_t t = 0; t < rows.size(); ++t) {
    const size_t at = firstNonFinite(rows[t]);
    if (at == rows[t].size()) continue;
    NonFiniteSite site;
    site.sequence = sequence;
    site.token = t;
    site.where = "the output";
    site.component = at;
    site.value = rows[t][at];
    offer(std::move(site));
    return;
  }
}

void NonFiniteWatch::refuseIfFound() const {
  if (!first_ || allow_) return;
  throw Error(first_->describe(withSequence_) + " in " + arithmetic_ +
              ", so the outputs would be wrong: refused (--allow-nonfinite prints them anyway)");
}

void NonFiniteWatch::finish(std::ostream& warnings) const {
  refuseIfFound();
  if (!first_) return;
  warnings << "lsrl run: warning: " << first_->describe(withSequence_) << " in " << arithmetic_
           << " (the first non-finite value); the outputs from there on are not to be trusted\n";
}

std::optional<NonFiniteSite> NonFiniteWatch::replayInFloat64(
    const std::vector<std::vector<double>>& tokens) const {
  if (graph_ == nullptr) return std::nullopt;
  PlanOptions options;
  options.exact = false;
  options.allowHugeSparse = true;  // the graph was validated when it was loaded
  Executor<double> executor(Plan::make(*graph_, options));
  executor.watchNonFinite(true);
  executor.run(tokens);
  return executor.nonFiniteSite();
}

}  // namespace lsrl::cli
