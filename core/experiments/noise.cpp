#include "core/experiments/noise.h"

#include <cmath>
#include <random>
#include <string>

#include "core/util/error.h"

namespace lsrl {

namespace {

class NoiseSource {
 public:
  NoiseSource(double sigma, uint64_t seed) : rng_(seed), normal_(0.0, sigma) {}

  Exact perturb(const Exact& x) {
    const double noisy = x.toDouble() + normal_(rng_);
    return Exact(noisy);
  }

  ExactMatrix perturb(const ExactMatrix& m) {
    std::vector<ExactMatrix::Entry> entries = m.entries();
    for (ExactMatrix::Entry& e : entries) e.value = perturb(e.value);
    // A draw that cancels a value exactly would drop it; with continuous noise it does
    // not happen in practice, and then the entry is a zero like any other.
    return ExactMatrix::fromEntries(m.rows(), m.cols(), std::move(entries));
  }

  void perturb(ExactVector& v) {
    for (Exact& x : v) {
      if (!x.isZero()) x = perturb(x);
    }
  }

 private:
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_;
};

}  // namespace

Graph withWeightNoise(const Graph& graph, const WeightNoise& noise) {
  if (!std::isfinite(noise.sigma) || noise.sigma < 0) {
    throw Error("weight noise: sigma must be a finite number >= 0, got " +
                std::to_string(noise.sigma));
  }
  Graph out = graph;
  if (noise.sigma == 0) return out;
  NoiseSource source(noise.sigma, noise.seed);
  for (size_t i = 0; i < out.nodeCount(); ++i) {
    Node& n = out.mutableNode(static_cast<NodeId>(i));
    switch (n.op) {
      case Op::Linear:
        n.A = source.perturb(n.A);
        source.perturb(n.b);
        n.slice.reset();
        break;
      case Op::LinState:
        n.A = source.perturb(n.A);
        n.B = source.perturb(n.B);
        source.perturb(n.bias);
        break;
      case Op::Input:
      case Op::ReLU:
      case Op::Concat:
      case Op::Multi:
        break;
    }
  }
  return out;
}

}  // namespace lsrl
