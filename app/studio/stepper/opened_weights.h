// A weights file as `lsrl export` or `lsrl.torch.save_compiled` writes it (safetensors or
// .npz; tensor names and "lsrl" metadata per docs/weights-format.md and
// docs/architectures.md), read for the Token stepper: to run it as an engine and to see
// what fine-tuning moved. Qt-free.
//
//   OpenedWeights w = openWeights("ft.safetensors");
//   w.fineTuned();                              // metadata has "fine_tuned"
//   w.requireInputWidth(program);               // d_in against the program's Input
//   std::string warning = w.sourceWarning(programHashes(program, metadata));
//   FloatTargetModel model = w.model();
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/io/tensor.h"
#include "core/targets/targets.h"

namespace lsrl::studio {

struct OpenedWeights {
  std::string path;
  TensorFile file;          // the tensors as stored (F64 or F32), in the file's order
  nlohmann::json metadata;  // the "lsrl" metadata, an object

  std::string fileName() const;  // "ft.safetensors"
  // True when lsrl.torch.save_compiled wrote it (metadata "fine_tuned").
  bool fineTuned() const;
  // True when the values are floats: a float32 module saved them (fine_tuned.dtype
  // "float32"; save_compiled stores them in F64) or every tensor is stored in F32.
  bool holdsFloats() const;
  // metadata "source".hash: the graphHash of the program the weights were built from.
  std::optional<std::string> sourceHash() const;
  // The float64 model the file describes (core/targets/import.h). Throws lsrl::Error
  // naming the file.
  FloatTargetModel model() const;
  // Throws lsrl::Error naming the file, expected and got, when its d_in is not the width
  // of `program`'s Input.
  void requireInputWidth(const Graph& program) const;
  // "ft.safetensors was built from another program (source hash …, the open program's …)"
  // when the recorded source hash is none of `programHashes` (programHashes below); empty
  // when it is one, or when the file records none.
  std::string sourceWarning(const std::vector<std::string>& programHashes) const;
};

// The hashes the open program answers to, as a weights file's "source" records them: its
// graphHash and, for a compiled model (`metadata` has "compiled"), the hash of the program
// it was compiled from, which a file built from the model records.
std::vector<std::string> programHashes(const Graph& program,
                                       const nlohmann::json& metadata = nullptr);

// Reads `path` (.npz as NumPy's zip, anything else safetensors, as lsrl export names them).
// Throws lsrl::Error naming the file: unreadable, no "lsrl" metadata, malformed JSON.
OpenedWeights openWeights(const std::string& path);

}  // namespace lsrl::studio
