// Target models as weight files (docs/spec/targets.md §8): a TargetModel's tensors and "lsrl"
// metadata as a TensorFile (for core/io/safetensors.h or npz.h), and such a file read
// back as a runnable float64 model of the same target. Export then import gives
// bit-identical float64 outputs (FloatTargetModel in targets.h).
//
//   writeSafetensors("m.safetensors", toTensorFile(buildTarget(path, Target::Lstm)));
//   FloatTargetModel back = readTargetModel("m.safetensors");
//   auto outputs = back.run(tokens);
#pragma once

#include <string>

#include "core/io/tensor.h"
#include "core/targets/targets.h"

namespace lsrl {

// tensors() (F64) and metadata() as JSON text.
TensorFile toTensorFile(const TargetModel& model);

// Rebuilds the float64 model from the "arch" and the sizes in the metadata. Throws
// lsrl::Error naming `where`: no or malformed metadata, an unknown arch, a missing
// tensor, or one whose shape is not the expected one (both shapes named).
FloatTargetModel importTargetModel(const TensorFile& file, const std::string& where = "<memory>");
// readSafetensors(path), then importTargetModel.
FloatTargetModel readTargetModel(const std::string& path);

}  // namespace lsrl
