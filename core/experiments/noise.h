// Weight noise for robustness experiments (paper Fig. 4): a copy of a graph with
// absolute Gaussian noise N(0, σ) added to the stored non-zeros of every Linear A and b
// and every LinState A, B and bias. Zeros stay zero (the sparsity pattern is kept) and
// LinState initial states are left alone.
#pragma once

#include <cstdint>

#include "core/graph/graph.h"

namespace lsrl {

struct WeightNoise {
  double sigma = 0;   // standard deviation of the absolute noise; 0 returns the graph as is
  uint64_t seed = 0;  // std::mt19937_64 seed; the draws follow node id, then row-major order
};

// The noise is added in float64 (each non-zero becomes the double nearest to it plus a
// draw, stored exactly as an Exact), as the float64 backend's weights would be perturbed.
// Perturbed Slices lose their slice tag: they no longer select. Throws lsrl::Error for a
// negative or non-finite σ.
Graph withWeightNoise(const Graph& graph, const WeightNoise& noise);

}  // namespace lsrl
