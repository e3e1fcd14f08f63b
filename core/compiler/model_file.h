// Compiled model files (docs/model-format.md): the compiler's path graph as a graph file
// (docs/graph-format.md) whose metadata says how it was compiled,
//   "metadata": {"compiled": {"backend": "exact", "optimize": true, "target": null,
//                             "source": {"name": ..., "hash": ...}, "steps": ...,
//                             "rule_counts": {...}, "sizes": {...}, "seconds": ...},
//                "sidecar": {"file": "model.safetensors", "bytes": N, "hash": ...}}
// with the large matrices and vectors in a safetensors sidecar (core/io/sidecar.h).
// Loading gives back a Graph identical to the saved one; both files are saved atomically.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/compiler/compiler.h"
#include "core/graph/graph.h"
#include "core/io/sidecar.h"

namespace lsrl {

struct CompiledModel {
  Graph path;
  nlohmann::json compiled;  // metadata "compiled"

  // "exact" or "float64" as recorded; throws lsrl::Error naming the file otherwise.
  Backend backend() const;
  // The --target recorded at compile time, or "" when none was given.
  std::string target() const;
};

// Where a compiled program came from.
struct ModelSource {
  std::string name;  // e.g. the program file's stem
  std::string hash;  // graphHash() of the program
};

// The "compiled" metadata of a finished compile; `target` may be empty.
nlohmann::json compiledMetadata(const CompileResult& result, const CompileOptions& options,
                                const ModelSource& source, const std::string& target = {});

struct ModelSaveOptions {
  size_t sidecarMinEntries = kDefaultSidecarMinEntries;  // see SidecarWriter
};

// Writes the sidecar (when any matrix is large enough) and then the JSON, each atomically.
// `otherMetadata` (an object, or null for none) adds entries beside "compiled" and "sidecar".
void saveModelFile(const std::string& path, const Graph& model, const nlohmann::json& compiled,
                   const ModelSaveOptions& options = {},
                   const nlohmann::json& otherMetadata = nullptr);
CompiledModel loadModelFile(const std::string& path);

// True for a graph document whose metadata has "compiled" (a model, not a program).
bool isModelDocument(const nlohmann::json& doc);
// Loads a parsed model document; `path` is its file (the sidecar is looked up beside it).
CompiledModel modelFromJson(const nlohmann::json& doc, const std::string& path);

}  // namespace lsrl
