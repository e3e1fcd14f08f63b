// `lsrl run FILE --input IN.npy|IN.safetensors -o OUT.npy|OUT.safetensors`: a binary token
// batch (core/io/token_array.h) run on any backend of `lsrl run`, its outputs written as a
// B × T × D array (core/io/array_file.h; T × D for a T × C input). The input is read and
// checked once, then run a block of sequences at a time (the batch runners get the array's
// values as their flat B·T·C buffer, the CPU executors a chunk of sequences), and each block's
// outputs go straight to OUT, which appears only when the whole run succeeded.
// Outputs are F32 ('<f4') for fp32 runs and F64 ('<f8') otherwise; exact runs compute
// exactly from the inputs' exact values (every float is a dyadic rational) and round each
// output once to the nearest double (docs/input-format.md, "Binary batches").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace lsrl::cli {

struct ArrayRunOptions {
  std::string backend = "float64";  // float64, exact, cpu32 or vulkan
  bool fp64 = false;                // --precision fp64 (vulkan, compiled models)
  int threads = 0;                  // the CPU executors' chunks (0: all cores)
  bool progress = false;            // progress lines on stderr
  bool allowNonFinite = false;      // --allow-nonfinite (nonfinite_watch.h)
};

// Returns the line `lsrl run` prints: backend, precision, input, output, shape and dtype.
// Throws lsrl::Error naming the input file for what is wrong with it (as tokenArrayFromBytes
// does, and a width other than the model's), and the errors of the JSON path otherwise; a
// float run that computes a non-finite value is refused (no OUT written) unless allowed.
nlohmann::ordered_json runArrayFile(const std::string& file, const std::string& inputPath,
                                    const std::string& outputPath, const ArrayRunOptions& options);

}  // namespace lsrl::cli
