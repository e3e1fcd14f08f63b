#include "core/targets/import.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/io/json_util.h"
#include "core/io/safetensors.h"
#include "core/targets/tensor_codec.h"
#include "core/util/error.h"

namespace lsrl {

TensorFile toTensorFile(const TargetModel& model) {
  TensorFile file;
  file.tensors = model.tensors();
  file.metadataJson = model.metadata().dump();
  return file;
}

namespace {

std::vector<int> widthList(const nlohmann::json& layer, const std::string& key,
                           const std::string& where) {
  std::vector<int> out;
  const nlohmann::json& list = metaArray(layer, key, where);
  for (size_t i = 0; i < list.size(); ++i) {
    out.push_back(metaInt(nlohmann::json{{key, list[i]}}, key, where));
  }
  return out;
}

// The NF family: layers.{l}.state.*, layers.{l}.f|g.{k}.*, readout.* with the sizes of
// metadata "layers" (d_s, f_widths, g_widths, role, state_update).
NfModel<double> normalFormFromTensors(const TensorSource& tensors, const nlohmann::json& meta) {
  const std::string& where = tensors.where();
  NfModel<double> m;
  m.inputDim = metaInt(meta, "d_in", where);
  int du = m.inputDim;
  const nlohmann::json& layers = metaArray(meta, "layers", where);
  for (size_t l = 0; l < layers.size(); ++l) {
    const nlohmann::json& info = layers[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    const int ds = metaInt(info, "d_s", where);
    NfLayer<double> L;
    L.A = tensors.matrix(p + "state.A", ds, ds);
    L.B = tensors.matrix(p + "state.B", ds, du);
    L.bias = tensors.vector(p + "state.bias", ds);
    L.s0 = tensors.vector(p + "state.s0", ds);
    const std::string update = metaString(info, "state_update", where);
    if (update != "linear" && update != "relu") {
      throw Error(where + ": layer " + std::to_string(l) + " has state_update \"" + update +
                  "\", expected linear or relu");
    }
    L.update = update == "relu" ? StateUpdate::Relu : StateUpdate::Linear;
    const std::string role = metaString(info, "role", where);
    if (role != "gated" && role != "ungated") {
      throw Error(where + ": layer " + std::to_string(l) + " has role \"" + role +
                  "\", expected gated or ungated");
    }
    L.gated = role == "gated";
    auto branch = [&](const char* name, std::vector<NfReluLayer<double>>& out) {
      int w = ds;
      const std::vector<int> widths = widthList(info, std::string(name) + "_widths", where);
      for (size_t k = 0; k < widths.size(); ++k) {
        const std::string q = p + name + "." + std::to_string(k) + ".";
        out.push_back(
            {tensors.matrix(q + "weight", widths[k], w), tensors.vector(q + "bias", widths[k])});
        w = widths[k];
      }
    };
    branch("f", L.f);
    if (L.gated) branch("g", L.g);
    du = L.outputDim();
    m.layers.push_back(std::move(L));
  }
  const int dOut = metaInt(meta, "d_out", where);
  m.readoutW = tensors.matrix("readout.weight", dOut, du);
  m.readoutB = tensors.vector("readout.bias", dOut);
  try {
    m.validate();
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return m;
}

}  // namespace

FloatTargetModel importTargetModel(const TensorFile& file, const std::string& where) {
  if (file.metadataJson.empty()) {
    throw Error(where + ": no \"lsrl\" metadata; cannot tell which architecture the tensors are");
  }
  // The project's parser: its errors say where and what, not nlohmann's raw text.
  const nlohmann::json meta = io::parseJson(file.metadataJson, where + ": the \"lsrl\" metadata");
  const std::string arch = metaString(meta, "arch", where);
  const std::optional<Target> target = targetFromName(arch);
  if (!target) {
    throw Error(where + ": unknown arch \"" + arch +
                "\" (expected linear_rnn, gated_linear_rnn, rnn, gated_rnn, gru, lstm or hawk)");
  }
  const TensorSource tensors(file.tensors, where);
  FloatTargetModel out;
  out.target = *target;
  switch (*target) {
    case Target::LinearRnn:
    case Target::GatedLinearRnn:
    case Target::Rnn:
    case Target::GatedRnn:
      out.model = normalFormFromTensors(tensors, meta);
      break;
    case Target::Gru:
      out.model = gruFromTensors(tensors, meta);
      break;
    case Target::Lstm:
      out.model = lstmFromTensors(tensors, meta);
      break;
    case Target::Hawk:
      out.model = hawkFromTensors(tensors, meta);
      break;
  }
  return out;
}

FloatTargetModel readTargetModel(const std::string& path) {
  return importTargetModel(readSafetensors(path), path);
}

}  // namespace lsrl
