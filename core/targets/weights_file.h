// A target model's weights as a file: its named float64 tensors and metadata
// (docs/weights-format.md) in safetensors or NumPy .npz, for `lsrl export` and the
// explorer's File > Export > Compiled weights, and read back for `lsrl run` and the
// explorer's Token stepper.
#pragma once

#include <string>

#include "core/io/tensor.h"
#include "core/targets/targets.h"

namespace lsrl {

// Dense weights beyond this many values (8 bytes each) are refused before any is built.
constexpr long long kMaxExportValues = 500'000'000;

// "safetensors" or "npz": `format` if given (else from the extension of `path`: .npz is
// npz, anything else safetensors). Throws lsrl::Error for an unknown format.
std::string weightsFormat(const std::string& path, const std::string& format = {});
// Throws lsrl::Error naming `what` when the path graph's dense weights are too many.
void requireExportableSize(const Graph& path, const std::string& what);
TensorFile weightsFile(const TargetModel& model);
// Writes atomically; returns the number of values written.
long long writeWeightsFile(const TensorFile& file, const std::string& path,
                           const std::string& format);
// Reads a weights file in the format its extension names (weightsFormat). Throws
// lsrl::Error naming the file, as readSafetensors / readNpz do.
TensorFile readWeightsFile(const std::string& path);

}  // namespace lsrl
