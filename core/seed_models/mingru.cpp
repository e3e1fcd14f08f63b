#include "core/seed_models/mingru.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lsrl::seed_models {

MinRnnGates minGruGates(const std::vector<double>& k, const std::vector<double>& hPre, int width) {
  requireSize("minGRU candidate pre-activations (as many as gate ones)", k.size(), hPre.size());
  MinRnnGates g = minRnnGatesWithCandidate("minGRU", hPre, width);
  for (const double x : k) {
    g.logA.push_back(-minRnnSoftplus(x));   // log(1 − z)
    g.logW.push_back(-minRnnSoftplus(-x));  // log z
  }
  return g;
}

void traceMinGruCell(Trace& trace, const std::string& prefix,
                     const std::vector<std::vector<double>>& pre, const MinRnnGates& gates) {
  const std::vector<int64_t> shape = {gates.steps, gates.width};
  std::vector<double> z;
  for (const double x : pre.at(0)) z.push_back(minRnnSigmoid(x));
  trace.add(prefix + "z_pre", shape, pre.at(0));
  trace.add(prefix + "z", shape, z);
}

}  // namespace lsrl::seed_models
