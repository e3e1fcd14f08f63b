// Token input files for `lsrl run` and the prompt builders:
//   {"tokens": [[...], ...]}                       one sequence, one row per token
//   {"batch": [{"tokens": [[...], ...]}, ...]}     several sequences
// Values are numbers or scalar-grammar strings ("1/3", "sqrt(2)"); every row must
// have the same width. Outputs use {"outputs": ...} / {"batch_outputs": [...]}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/matrix.h"

namespace lsrl {

using ExactSequence = std::vector<ExactVector>;  // [token][feature]

struct SequenceBatch {
  std::vector<ExactSequence> sequences;
  bool isBatch = false;  // the file used the "batch" form
  int width = 0;         // token width shared by every row
  nlohmann::json extra;  // other top-level keys (e.g. "seed", "query"), preserved
};

// Throws lsrl::Error naming the source, the JSON path and expected vs got.
SequenceBatch sequencesFromJson(const nlohmann::json& doc, const std::string& source = "<memory>");
SequenceBatch sequencesFromString(std::string_view text, const std::string& source = "<memory>");
SequenceBatch loadSequenceFile(const std::string& path);

// Exact values print as JSON integers when integral and below 2^53 in magnitude,
// otherwise as scalar-grammar strings; float output prints plain JSON numbers.
nlohmann::json exactToJson(const Exact& x);
nlohmann::json exactRowsToJson(const std::vector<ExactVector>& rows);
nlohmann::json doubleRowsToJson(const std::vector<std::vector<double>>& rows);
// A JSON number or scalar-grammar string -> Exact; throws naming `where`.
Exact exactFromJson(const nlohmann::json& v, const std::string& where);

}  // namespace lsrl
