#include "app/cli/prompt_batch.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/io/array_file.h"
#include "core/programs/prompts.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

// Prompts drawn and written at a time.
constexpr size_t kBlock = 4096;
// Integers F32 holds exactly (2^24).
constexpr int kF32Integers = 1 << 24;

// Draws the prompts [first, first + count): their tokens and expected answers appended.
void drawPrompts(const Tok2tokBatch& b, size_t first, size_t count, std::vector<int>& tokens,
                 std::vector<int>& expected) {
  for (size_t i = first; i < first + count; ++i) {
    const Tok2tokCase c = randomDictionary(b.entries, b.L, b.vocab, b.seed + i);
    appendTok2tokTokens(c.dictionary, c.query, tokens);
    const std::vector<int> answer = tok2tokExpected(c.dictionary, c.query, b.L);
    expected.insert(expected.end(), answer.begin(), answer.end());
  }
}

nlohmann::ordered_json parameters(const Tok2tokBatch& b) {
  nlohmann::ordered_json j;
  j["program"] = "tok2tok";
  j["L"] = b.L;
  j["K"] = b.entries;
  j["vocab"] = b.vocab;
  j["seed"] = b.seed;
  j["count"] = b.count;
  j["prompt_seeds"] = "seed + i";
  return j;
}

void writeArrays(const Tok2tokBatch& b, size_t steps, const std::string& path) {
  const Tensor::DType dtype = b.vocab <= kF32Integers ? Tensor::F32 : Tensor::F64;
  const auto n = static_cast<int64_t>(b.count);
  std::vector<ArraySpec> arrays = {{"tokens", dtype, {n, static_cast<int64_t>(steps), 1}}};
  const bool safetensors = arrayFormatOf(path) == ArrayFormat::Safetensors;
  if (safetensors) arrays.push_back({"expected", dtype, {n, b.L}});
  ArrayFileWriter writer(path, arrays, safetensors ? parameters(b).dump() : "");
  std::vector<int> tokens, expected, blockExpected;
  std::vector<double> values;
  for (size_t first = 0; first < b.count; first += kBlock) {
    tokens.clear();
    blockExpected.clear();
    drawPrompts(b, first, std::min(kBlock, b.count - first), tokens, blockExpected);
    values.assign(tokens.begin(), tokens.end());
    writer.append(std::span<const double>(values));
    if (safetensors) expected.insert(expected.end(), blockExpected.begin(), blockExpected.end());
  }
  values.assign(expected.begin(), expected.end());
  writer.append(std::span<const double>(values));
  writer.commit();
}

// The JSON batch, written as text block by block (a JSON document of a million prompts
// would take gigabytes).
void writeJson(const Tok2tokBatch& b, size_t steps, const std::string& path) {
  AtomicFileWriter file(path);
  std::string text = parameters(b).dump();
  text.pop_back();  // the closing brace: "batch" and "expected" follow
  text += ",\"batch\":[";
  std::vector<int> tokens, expected;
  for (size_t first = 0; first < b.count; first += kBlock) {
    const size_t count = std::min(kBlock, b.count - first);
    tokens.clear();
    drawPrompts(b, first, count, tokens, expected);
    for (size_t k = 0; k < count; ++k) {
      text += first + k > 0 ? ",{\"tokens\":[" : "{\"tokens\":[";
      for (size_t t = 0; t < steps; ++t)
        text += (t > 0 ? ",[" : "[") + std::to_string(tokens[k * steps + t]) + "]";
      text += "]}";
    }
    file.write(text);
    text.clear();
  }
  text += "],\"expected\":[";
  for (size_t i = 0; i < b.count; ++i) {
    text += i > 0 ? ",[" : "[";
    for (int l = 0; l < b.L; ++l)
      text += (l > 0 ? "," : "") + std::to_string(expected[i * static_cast<size_t>(b.L) + l]);
    text += "]";
  }
  text += "]}\n";
  file.write(text);
  file.commit();
}

}  // namespace

size_t writeTok2tokBatch(const Tok2tokBatch& b, const std::string& path) {
  const size_t steps = static_cast<size_t>(b.L) * (2 * static_cast<size_t>(b.entries) + 1);
  (void)randomDictionary(b.entries, b.L, b.vocab, b.seed);  // K, L, V refused before any file
  if (arrayFormatOf(path)) {
    writeArrays(b, steps, path);
  } else if (path.ends_with(".json")) {
    writeJson(b, steps, path);
  } else {
    throw Error("-o " + path + ": --count writes .npy, .safetensors or .json");
  }
  return steps;
}

}  // namespace lsrl::cli
