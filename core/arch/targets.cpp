#include "core/arch/targets.h"

#include <array>

#include "core/arch/positivity.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

struct TargetInfo {
  Target target;
  std::string_view name;
  std::string_view arch;
};

constexpr std::array<TargetInfo, 7> kTargets{{
    {Target::LinearRnn, "linear-rnn", "linear_rnn"},
    {Target::GatedLinearRnn, "gated-linear-rnn", "gated_linear_rnn"},
    {Target::Rnn, "rnn", "rnn"},
    {Target::GatedRnn, "gated-rnn", "gated_rnn"},
    {Target::Gru, "gru", "gru"},
    {Target::Lstm, "lstm", "lstm"},
    {Target::Hawk, "hawk", "hawk"},
}};

const TargetInfo& info(Target t) { return kTargets[static_cast<size_t>(t)]; }

NamedTensor matrixTensor(std::string name, const ExactMatrix& m) {
  NamedTensor t;
  t.name = std::move(name);
  t.shape = {m.rows(), m.cols()};
  t.data.assign(static_cast<size_t>(m.rows()) * static_cast<size_t>(m.cols()), 0.0);
  for (const auto& e : m.entries()) {
    t.data[static_cast<size_t>(e.row) * static_cast<size_t>(m.cols()) +
           static_cast<size_t>(e.col)] = e.value.toDouble();
  }
  return t;
}

NamedTensor vectorTensor(std::string name, const ExactVector& v) {
  NamedTensor t;
  t.name = std::move(name);
  t.shape = {static_cast<int64_t>(v.size())};
  for (const Exact& x : v) t.data.push_back(x.toDouble());
  return t;
}

nlohmann::json widths(const std::vector<NfReluLayer<Exact>>& br) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : br) out.push_back(l.W.rows());
  return out;
}

}  // namespace

std::string_view targetName(Target t) { return info(t).name; }
std::string_view targetArchName(Target t) { return info(t).arch; }

std::optional<Target> targetFromName(std::string_view name) {
  for (const TargetInfo& i : kTargets) {
    if (i.name == name || i.arch == name) return i.target;
  }
  return std::nullopt;
}

const std::vector<Target>& allTargets() {
  static const std::vector<Target> all = [] {
    std::vector<Target> v;
    for (const TargetInfo& i : kTargets) v.push_back(i.target);
    return v;
  }();
  return all;
}

NodeId firstMulti(const Graph& path) {
  for (NodeId id : pathNodes(path)) {
    if (path.node(id).op == Op::Multi) return id;
  }
  return kNoNode;
}

TargetModel buildTarget(const Graph& path, Target target, const TargetOptions& options) {
  const std::string name(targetName(target));
  if (target == Target::Gru || target == Target::Lstm || target == Target::Hawk) {
    throw Error("target " + name + ": not implemented yet");
  }
  if (target == Target::LinearRnn || target == Target::Rnn) {
    const NodeId multi = firstMulti(path);
    if (multi != kNoNode) {
      const Node& n = path.node(multi);
      throw Error("target " + name + " cannot express a product: the program contains Multi node " +
                  std::to_string(multi) + (n.name.empty() ? "" : " '" + n.name + "'") +
                  " (use gated-" + name + ")");
    }
  }
  TargetModel m;
  m.target = target;
  m.options = options;
  m.nf = compileNormalForm(path);
  if (target == Target::Rnn || target == Target::GatedRnn) {
    if (options.positivity == Positivity::Shift) {
      ShiftResult shifted = shiftPositivity(m.nf, options.shift);
      m.nf = std::move(shifted.model);
      m.shiftC = std::move(shifted.c);
      m.positivity = "shift";
    } else {
      m.nf = splitPositivity(m.nf);
      m.positivity = "split";
    }
  }
  return m;
}

std::vector<std::vector<Exact>> TargetModel::run(
    const std::vector<std::vector<Exact>>& tokens) const {
  return runNormalForm(nf, tokens);
}

std::vector<std::vector<double>> TargetModel::runFloat(
    const std::vector<std::vector<double>>& tokens) const {
  return runNormalForm(floatModel(), tokens);
}

std::vector<NamedTensor> normalFormTensors(const NfModel<Exact>& nf,
                                           const std::vector<ExactVector>& shiftC) {
  std::vector<NamedTensor> out;
  for (size_t l = 0; l < nf.layers.size(); ++l) {
    const NfLayer<Exact>& L = nf.layers[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    out.push_back(matrixTensor(p + "state.A", L.A));
    out.push_back(matrixTensor(p + "state.B", L.B));
    out.push_back(vectorTensor(p + "state.bias", L.bias));
    out.push_back(vectorTensor(p + "state.s0", L.s0));
    if (l < shiftC.size()) out.push_back(vectorTensor(p + "positivity.c", shiftC[l]));
    for (size_t k = 0; k < L.f.size(); ++k) {
      const std::string q = p + "f." + std::to_string(k) + ".";
      out.push_back(matrixTensor(q + "weight", L.f[k].W));
      out.push_back(vectorTensor(q + "bias", L.f[k].b));
    }
    for (size_t k = 0; k < L.g.size(); ++k) {
      const std::string q = p + "g." + std::to_string(k) + ".";
      out.push_back(matrixTensor(q + "weight", L.g[k].W));
      out.push_back(vectorTensor(q + "bias", L.g[k].b));
    }
  }
  out.push_back(matrixTensor("readout.weight", nf.readoutW));
  out.push_back(vectorTensor("readout.bias", nf.readoutB));
  return out;
}

std::vector<NamedTensor> TargetModel::tensors() const { return normalFormTensors(nf, shiftC); }

nlohmann::json TargetModel::metadata() const {
  using nlohmann::json;
  json meta;
  meta["format_version"] = 1;
  meta["arch"] = std::string(targetArchName(target));
  meta["dtype"] = "float64";
  meta["d_in"] = nf.inputDim;
  meta["d_out"] = nf.outputDim();
  meta["activation_replacements"] = {{"sigmoid", "relu"}, {"tanh", "relu"}, {"gelu", "relu"}};
  meta["positivity"] = positivity;
  if (positivity == "shift") {
    meta["input_box"] = {options.shift.inputLo.toDouble(), options.shift.inputHi.toDouble()};
    meta["max_seq_len"] = options.shift.horizon;
  } else {
    meta["input_box"] = nullptr;
    meta["max_seq_len"] = nullptr;
  }
  json source;
  source["program"] = options.sourceName.empty() ? json(nullptr) : json(options.sourceName);
  source["hash"] = options.sourceHash.empty() ? json(nullptr) : json(options.sourceHash);
  meta["source"] = source;
  const bool relu = target == Target::Rnn || target == Target::GatedRnn;
  meta["state_update"] = relu ? "relu" : "linear";
  json layers = json::array();
  for (size_t l = 0; l < nf.layers.size(); ++l) {
    const NfLayer<Exact>& L = nf.layers[l];
    json j;
    j["index"] = l;
    j["role"] = L.gated ? "gated" : "ungated";
    j["d_u"] = L.inputDim();
    j["d_s"] = L.stateDim();
    j["d_y"] = L.outputDim();
    j["state_update"] = stateUpdateName(L.update);
    j["f_widths"] = widths(L.f);
    j["g_widths"] = widths(L.g);
    layers.push_back(std::move(j));
  }
  meta["layers"] = std::move(layers);
  json names = json::array();
  for (const NamedTensor& t : tensors()) names.push_back(t.name);
  meta["tensor_order"] = std::move(names);
  return meta;
}

}  // namespace lsrl
