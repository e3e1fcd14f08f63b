// Small random path graphs covering every layer kind and recurrence structure of the
// batch runners (core/batch/layer_program.h), shared by the CPU and Vulkan runner tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "core/batch/layouts.h"
#include "core/graph/graph.h"

namespace lsrl::testing_paths {

inline ExactMatrix randomMatrix(int rows, int cols, std::mt19937_64& rng, double density = 0.6) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<ExactMatrix::Entry> e;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (u(rng) * 0.5 + 0.5 < density)
        e.push_back({r, c, Exact::rational(std::lround(u(rng) * 8), 8)});
  return ExactMatrix::fromEntries(rows, cols, std::move(e));
}

inline ExactVector randomVector(int n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> u(-4, 4);
  ExactVector v;
  for (int i = 0; i < n; ++i) v.push_back(Exact::rational(u(rng), 4));
  return v;
}

// Input(3) → Linear → ReLU → LinState (diagonal) → Linear → Multi → LinState (rotation
// blocks) → LinState (general) → Linear.
inline Graph everyKindPath(std::mt19937_64& rng) {
  Graph g;
  NodeId x = g.addInput(3, "x");
  x = g.addLinear(x, randomMatrix(6, 3, rng), randomVector(6, rng), "lin0");
  x = g.addReLU(x, "relu");
  ExactMatrix diag = ExactMatrix::fromEntries(6, 6,
                                              {{0, 0, Exact::rational(1, 2)},
                                               {1, 1, Exact(1)},
                                               {3, 3, Exact::rational(-3, 4)},
                                               {5, 5, Exact::rational(9, 10)}});
  x = g.addLinState(x, diag, randomMatrix(6, 6, rng), randomVector(6, rng), randomVector(6, rng),
                    "diag");
  x = g.addLinear(x, randomMatrix(8, 6, rng), randomVector(8, rng), "lin1");
  x = g.addMulti(x, "multi");
  const Exact c = Exact::cosPi(1, 5), s = Exact::sinPi(1, 5);
  ExactMatrix rot = ExactMatrix::fromEntries(4, 4,
                                             {{0, 0, c},
                                              {0, 1, -s},
                                              {1, 0, s},
                                              {1, 1, c},
                                              {2, 2, Exact::rational(1, 2)},
                                              {3, 2, Exact::rational(1, 3)}});
  x = g.addLinState(x, rot, randomMatrix(4, 4, rng), randomVector(4, rng), randomVector(4, rng),
                    "rot");
  ExactMatrix general = randomMatrix(4, 4, rng, 0.5).scaled(Exact::rational(1, 3));
  x = g.addLinState(x, general, randomMatrix(4, 4, rng), randomVector(4, rng), randomVector(4, rng),
                    "general");
  g.setOutput(g.addLinear(x, randomMatrix(2, 4, rng), randomVector(2, rng), "out"));
  return g;
}

inline std::vector<float> randomTokens(const batch::SeriesShape& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> t(static_cast<size_t>(shape.batch) * shape.steps * shape.channels);
  for (float& x : t) x = u(rng);
  return t;
}

}  // namespace lsrl::testing_paths
