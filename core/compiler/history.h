// Rebuilding the graph at any step of a compile from the recorded steps and the archive of
// node payloads (immutable, shared with the compiler, so keeping them costs no copies).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/compiler/convert.h"

namespace lsrl::compiler {

template <class S>
class ReplayHistory final : public CompileHistory {
 public:
  ReplayHistory(const CGraph<S>& initial, std::vector<NodePtr<S>> archive, std::vector<Step> steps)
      : sc_(initial.scalars()), archive_(std::move(archive)), steps_(std::move(steps)) {
    alive0_.assign(archive_.size(), 0);
    inputs0_.assign(archive_.size(), {});
    for (NodeId id : initial.aliveIds()) {
      alive0_[static_cast<size_t>(id)] = 1;
      inputs0_[static_cast<size_t>(id)] = initial.inputs(id);
    }
    output0_ = initial.output();
  }

  size_t stepCount() const override { return steps_.size(); }

  Graph graphAt(size_t step) const override {
    if (step > steps_.size())
      throw Error("graphAt: step " + std::to_string(step) + " of " + std::to_string(steps_.size()));
    std::vector<char> alive = alive0_;
    std::vector<std::vector<NodeId>> inputs = inputs0_;
    NodeId output = output0_;
    for (size_t k = 0; k < step; ++k) {
      const Step& s = steps_[k];
      for (NodeId id : s.nodesAdded) alive[static_cast<size_t>(id)] = 1;
      for (NodeId id : s.nodesRemoved) {
        alive[static_cast<size_t>(id)] = 0;
        inputs[static_cast<size_t>(id)].clear();
      }
      for (const auto& [id, ins] : s.inputsSet) inputs[static_cast<size_t>(id)] = ins;
      output = s.outputAfter;
    }
    CGraph<S> g(sc_);
    for (size_t id = 0; id < archive_.size(); ++id) {
      if (alive[id]) {
        g.addShared(archive_[id], {});
      } else {
        g.addPlaceholder();
      }
    }
    for (size_t id = 0; id < archive_.size(); ++id) {
      if (alive[id] && !inputs[id].empty()) g.setInputs(static_cast<NodeId>(id), inputs[id]);
    }
    g.setOutput(output);
    return toGraph(g);
  }

  size_t idLimit() const override { return archive_.size(); }

  std::vector<std::pair<NodeId, std::vector<NodeId>>> initialInputs() const override {
    std::vector<std::pair<NodeId, std::vector<NodeId>>> out;
    for (size_t id = 0; id < alive0_.size(); ++id) {
      if (alive0_[id]) out.emplace_back(static_cast<NodeId>(id), inputs0_[id]);
    }
    return out;
  }

  NodeId initialOutput() const override { return output0_; }

  std::optional<Node> payload(NodeId id) const override {
    if (id < 0 || static_cast<size_t>(id) >= archive_.size() || !archive_[static_cast<size_t>(id)])
      return std::nullopt;
    return payloadNode(id, *archive_[static_cast<size_t>(id)], sc_);
  }

 private:
  Scalars<S> sc_;
  std::vector<NodePtr<S>> archive_;
  std::vector<Step> steps_;
  std::vector<char> alive0_;
  std::vector<std::vector<NodeId>> inputs0_;
  NodeId output0_ = kNoNode;
};

}  // namespace lsrl::compiler
