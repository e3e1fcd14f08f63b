// Helpers of the binary-batch tests of `lsrl run` (CPU backends in tests/cli, Vulkan in
// tests/gpu): reading an output array back and the JSON path's outputs as the same flat
// [b][t][d] values, so that the two paths can be compared value for value.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/numbers/exact.h"
#include "core/util/atomic_file.h"

namespace lsrl::cli::test {

// The array of an output file: a .npy file's, or a .safetensors file's "output" tensor.
inline Tensor readOutputArray(const std::string& path) {
  if (path.ends_with(".npy")) return npyFromBytes(readWholeFile(path), "output", path);
  const TensorFile file = readSafetensors(path);
  for (const Tensor& t : file.tensors)
    if (t.name == "output") return t;
  ADD_FAILURE() << path << " has no tensor 'output'";
  return {};
}

// The rows `lsrl run` printed ({"outputs": ...} or {"batch_outputs": ...}), flattened in
// [sequence][token][feature] order; exact values ("1/3") as their nearest doubles.
inline std::vector<double> flatJsonOutputs(const std::string& printed) {
  const nlohmann::json doc = nlohmann::json::parse(printed);
  nlohmann::json sequences = doc.contains("batch_outputs")
                                 ? doc["batch_outputs"]
                                 : nlohmann::json::array({doc["outputs"]});
  std::vector<double> values;
  for (const auto& sequence : sequences)
    for (const auto& row : sequence)
      for (const auto& v : row)
        values.push_back(v.is_string() ? Exact::parse(v.get<std::string>()).toDouble()
                                       : v.get<double>());
  return values;
}

// `lsrl run model --input arrayInput -o output extra...` and the same run of `jsonInput`
// (the same prompts as JSON) agree value for value; returns the output array.
inline Tensor expectBinaryRunMatchesJson(const std::string& model, const std::string& arrayInput,
                                         const std::string& jsonInput, const std::string& output,
                                         const std::vector<std::string>& extra) {
  std::vector<std::string> binary = {"run", model, "--input", arrayInput, "-o", output};
  std::vector<std::string> json = {"run", model, "--input", jsonInput};
  binary.insert(binary.end(), extra.begin(), extra.end());
  json.insert(json.end(), extra.begin(), extra.end());
  const Result b = lsrl(binary);
  const Result j = lsrl(json);
  EXPECT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(j.code, 0) << j.err;
  if (b.code != 0 || j.code != 0) return {};
  const Tensor out = readOutputArray(output);
  const std::vector<double> want = flatJsonOutputs(j.out);
  EXPECT_EQ(out.data.size(), want.size());
  size_t differing = 0;
  for (size_t i = 0; i < std::min(out.data.size(), want.size()); ++i)
    if (out.data[i] != want[i] && ++differing <= 5)
      ADD_FAILURE() << "value " << i << ": binary " << out.data[i] << ", JSON " << want[i];
  EXPECT_EQ(differing, 0u);
  return out;
}

}  // namespace lsrl::cli::test
