#include "core/seed_models/minlstm.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace lsrl::seed_models {

MinRnnGates minLstmGates(const std::vector<double>& p, const std::vector<double>& k,
                         const std::vector<double>& hPre, int width) {
  requireSize("minLSTM input-gate pre-activations (as many as forget ones)", p.size(), k.size());
  requireSize("minLSTM candidate pre-activations (as many as forget ones)", p.size(), hPre.size());
  MinRnnGates g = minRnnGatesWithCandidate("minLSTM", hPre, width);
  for (size_t n = 0; n < p.size(); ++n) {
    const double diff = minRnnSoftplus(-p[n]) - minRnnSoftplus(-k[n]);  // log(i / f)
    g.logA.push_back(-minRnnSoftplus(diff));                            // log f'
    g.logW.push_back(-minRnnSoftplus(-diff));                           // log i'
  }
  return g;
}

void traceMinLstmCell(Trace& trace, const std::string& prefix,
                      const std::vector<std::vector<double>>& pre, const MinRnnGates& gates) {
  const std::vector<int64_t> shape = {gates.steps, gates.width};
  auto map = [](const std::vector<double>& xs, double (*f)(double)) {
    std::vector<double> out;
    for (const double x : xs) out.push_back(f(x));
    return out;
  };
  auto exp = [](double x) { return std::exp(x); };
  trace.add(prefix + "f_pre", shape, pre.at(0));
  trace.add(prefix + "i_pre", shape, pre.at(1));
  trace.add(prefix + "f", shape, map(pre.at(0), minRnnSigmoid));
  trace.add(prefix + "i", shape, map(pre.at(1), minRnnSigmoid));
  trace.add(prefix + "f_prime", shape, map(gates.logA, exp));
  trace.add(prefix + "i_prime", shape, map(gates.logW, exp));
}

}  // namespace lsrl::seed_models
