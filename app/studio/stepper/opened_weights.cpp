#include "app/studio/stepper/opened_weights.h"

#include <algorithm>
#include <filesystem>

#include "core/io/graph_hash.h"
#include "core/targets/import.h"
#include "core/targets/weights_file.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::studio {

std::string OpenedWeights::fileName() const {
  return std::filesystem::path(path).filename().string();
}

bool OpenedWeights::fineTuned() const { return metadata.contains("fine_tuned"); }

bool OpenedWeights::holdsFloats() const {
  const auto record = metadata.find("fine_tuned");
  if (record != metadata.end() && record->is_object() && record->value("dtype", "") == "float32")
    return true;
  return !file.tensors.empty() &&
         std::all_of(file.tensors.begin(), file.tensors.end(),
                     [](const Tensor& t) { return t.dtype == Tensor::F32; });
}

std::optional<std::string> OpenedWeights::sourceHash() const {
  const auto source = metadata.find("source");
  if (source == metadata.end() || !source->is_object()) return std::nullopt;
  const auto hash = source->find("hash");
  if (hash == source->end() || !hash->is_string()) return std::nullopt;
  return hash->get<std::string>();
}

FloatTargetModel OpenedWeights::model() const { return importTargetModel(file, path); }

void OpenedWeights::requireInputWidth(const Graph& program) const {
  const NodeId input = program.input();
  if (input == kNoNode) throw Error("the program has no Input to feed " + quotePath(path));
  const int expected = program.node(input).dim;
  const auto dIn = metadata.find("d_in");
  const std::string got = dIn == metadata.end() ? std::string("none") : dIn->dump();
  if (dIn == metadata.end() || !dIn->is_number_integer() || dIn->get<long long>() != expected) {
    // The file's name, not its path: the message must fit the stepper's status line.
    throw Error("weights file " + fileName() + ": d_in expected " + std::to_string(expected) +
                " (the program's Input width), got " + got);
  }
}

std::string OpenedWeights::sourceWarning(const std::vector<std::string>& programHashes) const {
  const std::optional<std::string> recorded = sourceHash();
  if (!recorded || programHashes.empty() ||
      std::find(programHashes.begin(), programHashes.end(), *recorded) != programHashes.end())
    return {};
  return fileName() + " was built from another program (source hash " + *recorded +
         ", the open program's " + programHashes.front() + ")";
}

std::vector<std::string> programHashes(const Graph& program, const nlohmann::json& metadata) {
  std::vector<std::string> hashes{graphHash(program)};
  const nlohmann::json source = metadata.is_object()
                                    ? metadata.value("compiled", nlohmann::json::object())
                                          .value("source", nlohmann::json::object())
                                    : nlohmann::json::object();
  if (source.is_object() && source.contains("hash") && source["hash"].is_string())
    hashes.push_back(source["hash"].get<std::string>());
  return hashes;
}

OpenedWeights openWeights(const std::string& path) {
  OpenedWeights w;
  w.path = path;
  w.file = readWeightsFile(path);
  if (w.file.metadataJson.empty())
    throw Error("weights file " + quotePath(path) + " has no \"lsrl\" metadata");
  try {
    w.metadata = nlohmann::json::parse(w.file.metadataJson);
  } catch (const nlohmann::json::exception& e) {
    throw Error("weights file " + quotePath(path) + ": the \"lsrl\" metadata is no JSON (" +
                e.what() + ")");
  }
  if (!w.metadata.is_object())
    throw Error("weights file " + quotePath(path) + ": the \"lsrl\" metadata is no JSON object");
  return w;
}

}  // namespace lsrl::studio
