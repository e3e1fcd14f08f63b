// Compile history files (docs/model-format.md): the step log of a compile (every rule
// that fired, with the nodes and edges it removed and added) plus every node payload
// the log refers to, as JSON ("lsrl-history") with large matrices in a safetensors
// sidecar. Loading gives back a CompileHistory whose graphAt(step) equals the in-memory
// history's, so a saved compile can be replayed and animated without recompiling.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/compiler/compiler.h"
#include "core/compiler/ir.h"
#include "core/io/sidecar.h"

namespace lsrl {

constexpr int kHistoryFormatVersion = 1;

struct HistorySource {
  std::string name;  // program name
  std::string hash;  // graphHash() of the program
};

// How big a history file may grow (JSON and sidecar together) before its compile is
// stopped: without the size optimisations, tok2tok's history (every intermediate matrix
// of thousands of folds) would be several gigabytes.
constexpr uint64_t kDefaultHistoryLimitBytes = uint64_t{2} << 30;

struct HistoryWriteOptions {
  HistorySource source;
  uint64_t limitBytes = kDefaultHistoryLimitBytes;
  std::string limitHint;  // appended to the limit's message (how to raise it)
  size_t sidecarMinEntries = kDefaultSidecarMinEntries;
};

// Writes a history file while the compile runs (a CompileOptions::historySink): each
// payload goes to disk when its node is made, so memory stays that of the compile however
// big the history grows. Throws lsrl::Error, which stops the compile, once the file would
// pass options.limitBytes. finish() puts the pair in place atomically; an instance
// destroyed without finish() leaves no file behind.
class HistoryFileWriter final : public HistorySink {
 public:
  HistoryFileWriter(const std::string& path, Backend backend, int conductor,
                    HistoryWriteOptions options = {});
  ~HistoryFileWriter() override;
  HistoryFileWriter(const HistoryFileWriter&) = delete;
  HistoryFileWriter& operator=(const HistoryFileWriter&) = delete;

  void start(std::vector<std::pair<NodeId, std::vector<NodeId>>> inputs, NodeId output) override;
  void payload(const Node& node) override;
  // The step log (CompileResult::steps of the same compile) and the final renames.
  void finish(const std::vector<compiler::Step>& steps);

  uint64_t bytesSoFar() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Saves the history of `result`, a compile of `program` run with replayableHistory (and
// recordHistory). Each payload is read once from result.history's archive
// (CompileHistory::payload) and written through a HistoryFileWriter with no size limit.
void saveHistoryFile(const std::string& path, const Graph& program, const CompileResult& result,
                     const HistorySource& source = {},
                     size_t sidecarMinEntries = kDefaultSidecarMinEntries);

struct LoadedHistory {
  Backend backend = Backend::Exact;
  std::vector<compiler::Step> steps;
  std::shared_ptr<const CompileHistory> history;  // graphAt(0 .. steps.size())
  nlohmann::json source;                          // {"name": ..., "hash": ...}
};

// Throws lsrl::Error naming the file and the JSON location (or sidecar tensor).
LoadedHistory loadHistoryFile(const std::string& path);

}  // namespace lsrl
