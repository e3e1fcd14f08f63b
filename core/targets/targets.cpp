#include "core/targets/targets.h"

#include <array>
#include <nlohmann/json.hpp>

#include "core/graph/checks.h"
#include "core/targets/bounds.h"
#include "core/targets/positivity.h"
#include "core/targets/tensor_codec.h"
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

nlohmann::json widths(const std::vector<NfReluLayer<Exact>>& br) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : br) out.push_back(l.W.rows());
  return out;
}

}  // namespace

std::string_view targetName(Target t) { return info(t).name; }
std::string_view targetArchName(Target t) { return info(t).arch; }

std::optional<Positivity> positivityFromName(std::string_view name) {
  if (name == "split") return Positivity::Split;
  if (name == "shift") return Positivity::Shift;
  return std::nullopt;
}

std::optional<Target> targetFromName(std::string_view name) {
  for (const TargetInfo& i : kTargets) {
    if (i.name == name || i.arch == name) return i.target;
  }
  return std::nullopt;
}

bool hasNonNegativeStates(Target t) {
  return t == Target::Rnn || t == Target::GatedRnn || t == Target::Gru || t == Target::Lstm;
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

namespace {

// §3.2: K per gated layer, a power of two ≥ the bound on F's output over the box and t ≤ T
// (1 where the bound is 0), from the linear NF whose F outputs the split/shift keeps.
std::vector<ExactVector> gruBounds(const NfModel<Exact>& linearNf, const ShiftOptions& box) {
  if (box.horizon < 1) {
    throw Error(
        "target gru: the \"pytorch\" update needs an upper bound K on its product inputs, "
        "hence an input box and a horizon T (max_seq_len); give them, or use the \"paper\" "
        "update, which needs no bound");
  }
  const std::vector<LayerBounds> bounds =
      layerBounds(linearNf, box.inputLo, box.inputHi, box.horizon);
  std::vector<ExactVector> K;
  for (size_t l = 0; l < linearNf.layers.size(); ++l) {
    ExactVector k;
    if (linearNf.layers[l].gated) {
      for (const Exact& hi : bounds[l].f.hi)
        k.push_back(hi.sign() > 0 ? powerOfTwoAtLeast(hi) : Exact(1));
    }
    K.push_back(std::move(k));
  }
  return K;
}

// The ReLU-state NF of rnn / gated-rnn / gru / lstm: split (default) or shift.
void makeStatesNonNegative(TargetModel& m) {
  if (m.options.positivity == Positivity::Shift) {
    ShiftResult shifted = shiftPositivity(m.nf, m.options.shift);
    m.nf = std::move(shifted.model);
    m.shiftC = std::move(shifted.c);
    m.positivity = "shift";
  } else {
    m.nf = splitPositivity(m.nf);
    m.positivity = "split";
  }
}

}  // namespace

TargetModel buildTarget(const Graph& path, Target target, const TargetOptions& options) {
  requireValidPath(path);
  const std::string name(targetName(target));
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
  switch (target) {
    case Target::LinearRnn:
    case Target::GatedLinearRnn:
      break;
    case Target::Rnn:
    case Target::GatedRnn:
      makeStatesNonNegative(m);
      break;
    case Target::Gru: {
      std::vector<ExactVector> K;
      if (options.gruUpdate == GruUpdate::Pytorch) K = gruBounds(m.nf, options.shift);
      makeStatesNonNegative(m);
      GruModel<Exact> gru = buildGru(m.nf, options.gruUpdate, K);
      m.built = options.stacked ? stackGru(gru) : std::move(gru);
      break;
    }
    case Target::Lstm:
      makeStatesNonNegative(m);
      m.built = options.stacked ? stackLstm(buildLstm(m.nf)) : buildLstm(m.nf);
      break;
    case Target::Hawk:
      m.built = buildHawk(m.nf, options.hawkResidual, options.shift.horizon);
      break;
  }
  return m;
}

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace

std::vector<std::vector<Exact>> TargetModel::run(
    const std::vector<std::vector<Exact>>& tokens) const {
  return std::visit(Overloaded{[&](const std::monostate&) { return runNormalForm(nf, tokens); },
                               [&](const GruModel<Exact>& g) { return runGru(g, tokens); },
                               [&](const LstmModel<Exact>& l) { return runLstm(l, tokens); },
                               [&](const HawkModel<Exact>& h) { return runHawk(h, tokens); }},
                    built);
}

FloatTargetModel TargetModel::floatModel() const {
  FloatTargetModel f;
  f.target = target;
  std::visit(Overloaded{[&](const std::monostate&) { f.model = toFloat(nf); },
                        [&](const auto& m) { f.model = toFloat(m); }},
             built);
  return f;
}

std::vector<std::vector<double>> TargetModel::runFloat(
    const std::vector<std::vector<double>>& tokens) const {
  return floatModel().run(tokens);
}

int FloatTargetModel::inputDim() const {
  return std::visit([](const auto& m) { return m.inputDim; }, model);
}

int FloatTargetModel::outputDim() const {
  return std::visit([](const auto& m) { return m.outputDim(); }, model);
}

std::vector<std::vector<double>> FloatTargetModel::run(
    const std::vector<std::vector<double>>& tokens) const {
  return std::visit(Overloaded{[&](const NfModel<double>& m) { return runNormalForm(m, tokens); },
                               [&](const GruModel<double>& g) { return runGru(g, tokens); },
                               [&](const LstmModel<double>& l) { return runLstm(l, tokens); },
                               [&](const HawkModel<double>& h) { return runHawk(h, tokens); }},
                    model);
}

std::vector<Tensor> normalFormTensors(const NfModel<Exact>& nf,
                                      const std::vector<ExactVector>& shiftC) {
  std::vector<Tensor> out;
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

std::vector<Tensor> TargetModel::tensors() const {
  return std::visit(Overloaded{[&](const std::monostate&) { return normalFormTensors(nf, shiftC); },
                               [&](const GruModel<Exact>& g) { return gruTensors(g); },
                               [&](const LstmModel<Exact>& l) { return lstmTensors(l); },
                               [&](const HawkModel<Exact>& h) { return hawkTensors(h); }},
                    built);
}

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
  // The box and T are assumptions of the model where the shift or the GRU bound K used them.
  const bool usesBox =
      positivity == "shift" || (target == Target::Gru && options.gruUpdate == GruUpdate::Pytorch);
  if (usesBox) {
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
  meta["precision"] = options.precision;
  const bool relu =
      target != Target::LinearRnn && target != Target::GatedLinearRnn && target != Target::Hawk;
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
  // "layers": the target's own layers; "nf_layers": the NF layers they were built from.
  meta["nf_layers"] = layers;
  meta["layers"] = std::move(layers);
  auto merge = [&](const json& extra) {
    for (const auto& [key, value] : extra.items()) meta[key] = value;
  };
  std::visit(Overloaded{[&](const std::monostate&) {},
                        [&](const GruModel<Exact>& g) { merge(gruMetadata(g)); },
                        [&](const LstmModel<Exact>& l) { merge(lstmMetadata(l)); },
                        [&](const HawkModel<Exact>& h) { merge(hawkMetadata(h)); }},
             built);
  json names = json::array();
  for (const Tensor& t : tensors()) names.push_back(t.name);
  meta["tensor_order"] = std::move(names);
  return meta;
}

}  // namespace lsrl
