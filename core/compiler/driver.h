// The compiler's driver: folds to a fixed point, then repeatedly takes the first node in
// Kahn order (smallest id first) with more than one successor, rewrites it with the first
// debranch rule that matches, folds again, and records every rewrite as a Step.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/compiler/optimize.h"
#include "core/compiler/rule.h"
#include "core/compiler/rules/bypass.h"
#include "core/compiler/rules/fold.h"
#include "core/compiler/rules/merge.h"
#include "core/compiler/rules/multi.h"
#include "core/compiler/rules/slices.h"

namespace lsrl::compiler {

template <class S>
std::vector<std::unique_ptr<FoldRule<S>>> foldRules() {
  std::vector<std::unique_ptr<FoldRule<S>>> r;
  r.push_back(std::make_unique<FoldLinearLinear<S>>());
  r.push_back(std::make_unique<FoldReluRelu<S>>());
  r.push_back(std::make_unique<FoldLinearLinState<S>>());
  r.push_back(std::make_unique<FoldConcatDuplicate<S>>());
  return byBenefit(std::move(r));
}

// In the order they are tried: by benefit (docs/spec/compiler.md §2).
template <class S>
std::vector<std::unique_ptr<DebranchRule<S>>> debranchRules() {
  std::vector<std::unique_ptr<DebranchRule<S>>> r;
  r.push_back(std::make_unique<OnlyMultis<S>>());
  r.push_back(std::make_unique<MultiBypass<S>>());
  r.push_back(std::make_unique<OnlyLinStates<S>>());
  r.push_back(std::make_unique<OnlyReLUs<S>>());
  r.push_back(std::make_unique<OnlyConcats<S>>());
  r.push_back(std::make_unique<SliceMultiBypass<S>>());
  r.push_back(std::make_unique<PushSlices<S>>());
  r.push_back(std::make_unique<StackLinears<S>>());
  r.push_back(std::make_unique<PassThroughState<S>>());
  r.push_back(std::make_unique<BypassReLUs<S>>());
  r.push_back(std::make_unique<BypassLinearsRelu<S>>());
  r.push_back(std::make_unique<BypassConcatsLinear<S>>());
  r.push_back(std::make_unique<BypassConcatsRelu<S>>());
  r.push_back(std::make_unique<BypassMixed<S>>());
  return byBenefit(std::move(r));
}

struct DriverOptions {
  bool recordHistory = true;
  std::vector<std::string> disabledRules;
  long long maxSteps = 10'000'000;
  long long stopAfterSteps = -1;
  std::function<bool(long long steps)> progress;  // see CompileOptions::progress
  bool optimize = true;                           // see CompileOptions::optimize
  bool foldOnly = false;                          // see CompileOptions::foldOnly
};

// The name under which the size optimisation (optimize.h) is recorded, and what it does.
inline constexpr std::string_view kCompactRule = "O1 compact";
inline constexpr std::string_view kCompactExplanation =
    "size optimisation: equal values merged, dead dimensions and identity Linears removed";

struct DriverOutcome {
  std::vector<Step> steps;
  std::map<std::string, long long> ruleCounts;
  std::map<std::string, double> ruleSeconds;  // time spent in each rule's rewrites
  long long stepCount = 0;
  long long debranchSteps = 0;
  bool stopped = false;
};

template <class S>
class Driver {
 public:
  Driver(CGraph<S>& g, DriverOptions options) : g_(g), options_(std::move(options)) {
    for (const std::string& name : options_.disabledRules) {
      bool known = name == kCompactRule;
      for (const auto& r : foldRules<S>()) known = known || r->name() == name;
      for (const auto& r : debranchRules<S>()) known = known || r->name() == name;
      if (!known) throw Error("compile: unknown rule \"" + name + "\"");
    }
    for (auto& r : foldRules<S>()) {
      if (enabled(r->name())) folds_.push_back(std::move(r));
    }
    for (auto& r : debranchRules<S>()) {
      if (enabled(r->name())) debranch_.push_back(std::move(r));
    }
  }

  // Folds to a fixed point.
  void fold() {
    while (g_.hasDirty() && !stopped()) {
      const NodeId n = g_.popDirty();
      if (!g_.alive(n) || g_.op(n) == Op::Input) continue;
      for (const auto& rule : folds_) {
        if (!rule->match(g_, n)) continue;
        begin(rule->name(), n);
        rule->rewrite(g_, n);
        end(rule->name());
        break;
      }
    }
  }

  // The size optimisation as one step (when enabled and it changes anything), then folds.
  void compact() {
    if (options_.optimize && enabled(kCompactRule) && !stopped()) {
      Compactor<S> c(g_);
      if (c.analyze()) {
        begin(kCompactRule, kNoNode);
        c.rewrite();
        end(kCompactRule);
        fold();
      }
    }
    lastCompactWeight_ = g_.weight();
  }

  // One debranch step on the first branch node; false when the graph is a path.
  bool debranchOnce() {
    if (stopped()) return false;
    const NodeId branch = g_.firstBranch();
    if (branch == kNoNode) return false;
    const std::vector<NodeId> succs = g_.successors(branch);
    for (const auto& rule : debranch_) {
      if (!rule->match(g_, branch, succs)) continue;
      begin(rule->name(), branch);
      rule->rewrite(g_, branch, succs);
      end(rule->name());
      ++outcome_.debranchSteps;
      return true;
    }
    std::string kinds;
    for (NodeId s : succs) {
      if (!kinds.empty()) kinds += ", ";
      kinds += std::string(kindName(g_.node(s))) + " " + std::to_string(s);
    }
    throw Error("compile: unsupported combination of successors of " +
                std::string(kindName(g_.node(branch))) + " node " + std::to_string(branch) + ": [" +
                kinds + "]");
  }

  DriverOutcome run() {
    g_.touchAll();
    fold();
    if (options_.foldOnly) {
      outcome_.stopped = stopped() && g_.hasDirty();
      return std::move(outcome_);
    }
    compact();
    while (debranchOnce()) {
      fold();
      // Compacting costs one pass over the graph: do it when the graph has grown by
      // half (and by a minimum) since the last time, so that the passes add up to a small
      // multiple of one and a rule whose small additions a compaction removes again
      // cannot alternate with it.
      if (g_.weight() > lastCompactWeight_ + std::max(lastCompactWeight_ / 2, kCompactMinGrowth))
        compact();
    }
    fold();
    compact();
    outcome_.stopped = stopped() && (g_.hasDirty() || g_.firstBranch() != kNoNode);
    return std::move(outcome_);
  }

 private:
  bool stopped() const {
    return options_.stopAfterSteps >= 0 && outcome_.stepCount >= options_.stopAfterSteps;
  }
  bool enabled(std::string_view name) const {
    return std::find(options_.disabledRules.begin(), options_.disabledRules.end(), name) ==
           options_.disabledRules.end();
  }
  void begin(std::string_view rule, NodeId anchor) {
    if (outcome_.stepCount >= options_.maxSteps) {
      throw Error("compile: more than " + std::to_string(options_.maxSteps) + " steps");
    }
    g_.beginStep(std::string(rule), anchor, options_.recordHistory);
    stepStart_ = std::chrono::steady_clock::now();
  }
  void end(std::string_view rule) {
    Step s = g_.endStep();
    ++outcome_.stepCount;
    ++outcome_.ruleCounts[std::string(rule)];
    outcome_.ruleSeconds[std::string(rule)] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stepStart_).count();
    if (options_.recordHistory) outcome_.steps.push_back(std::move(s));
    if (options_.progress && outcome_.stepCount % kProgressEvery == 0 &&
        !options_.progress(outcome_.stepCount)) {
      throw Cancelled("compile: cancelled after " + std::to_string(outcome_.stepCount) + " steps");
    }
  }
  static constexpr long long kProgressEvery = 256;
  static constexpr long long kCompactMinGrowth = 64;

  CGraph<S>& g_;
  DriverOptions options_;
  std::vector<std::unique_ptr<FoldRule<S>>> folds_;
  std::vector<std::unique_ptr<DebranchRule<S>>> debranch_;
  DriverOutcome outcome_;
  long long lastCompactWeight_ = 0;
  std::chrono::steady_clock::time_point stepStart_;
};

}  // namespace lsrl::compiler
