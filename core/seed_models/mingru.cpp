#include "core/seed_models/mingru.h"

#include "core/util/error.h"

namespace lsrl::seed_models {

MinRnnGates minGruGates(const std::vector<double>& k, const std::vector<double>& hPre, int width) {
  requireSize("minGRU candidate pre-activations (as many as gate ones)", k.size(), hPre.size());
  if (width < 1 || k.size() % static_cast<size_t>(width) != 0)
    throw Error("minGRU gates: " + std::to_string(k.size()) +
                " pre-activations are not rows of width " + std::to_string(width));
  MinRnnGates g;
  g.width = width;
  g.steps = static_cast<int>(k.size() / static_cast<size_t>(width));
  g.candidate = hPre;
  for (const double x : k) {
    g.logA.push_back(-minRnnSoftplus(x));   // log(1 − z)
    g.logW.push_back(-minRnnSoftplus(-x));  // log z
  }
  return g;
}

MinGruModel::MinGruModel(const MinRnnConfig& config) : MinRnnModel(MinRnnCell::Gru, config) {}

MinGruModel::MinGruModel(const MinRnnConfig& config, const std::vector<Tensor>& weights)
    : MinRnnModel(MinRnnCell::Gru, config, weights) {}

MinGruModel MinGruModel::load(const std::string& path) {
  const auto [config, weights] = loadParts(MinRnnCell::Gru, path);
  return MinGruModel(config, weights);
}

MinGruModel MinGruModel::hold(const SelectiveCopyParams& task) {
  const auto [config, weights] = holdParts(MinRnnCell::Gru, task);
  return MinGruModel(config, weights);
}

MinRnnGates MinGruModel::cellGates(const std::vector<std::vector<double>>& pre, int width) const {
  return minGruGates(pre.at(0), pre.at(1), width);
}

void MinGruModel::traceCell(Trace& trace, const std::string& prefix,
                            const std::vector<std::vector<double>>& pre,
                            const MinRnnGates& gates) const {
  const std::vector<int64_t> shape = {gates.steps, gates.width};
  std::vector<double> z;
  for (const double x : pre.at(0)) z.push_back(minRnnSigmoid(x));
  trace.add(prefix + "z_pre", shape, pre.at(0));
  trace.add(prefix + "z", shape, z);
}

}  // namespace lsrl::seed_models
