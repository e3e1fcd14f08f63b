// Compile history files (docs/model-format.md): the step log of a compile (every rule
// that fired, with the nodes and edges it removed and added) plus every node payload
// the log refers to, as JSON ("lsrl-history") with large matrices in a safetensors
// sidecar. Loading gives back a CompileHistory whose graphAt(step) equals the in-memory
// history's, so a saved compile can be replayed and animated without recompiling.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/compile/compiler.h"
#include "core/compile/ir.h"
#include "core/io/sidecar.h"

namespace lsrl {

constexpr int kHistoryFormatVersion = 1;

struct HistorySource {
  std::string name;  // program name
  std::string hash;  // graphHash() of the program
};

// Saves the history of `result`, a compile of `program` run with replayableHistory (and
// recordHistory). Each payload is read once from result.history's archive
// (CompileHistory::payload), so saving costs time proportional to the file. Both files are
// written atomically.
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
