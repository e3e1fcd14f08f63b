// Every random draw is its own statement: the order in which a call's arguments are
// evaluated is unspecified (gcc and clang differ), and the graphs must be the same in both
// builds.
// Small random path graphs covering every layer kind and recurrence structure of the
// batch runners (core/float_batch/layer_program.h), shared by the CPU and Vulkan runner tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "core/float_batch/layouts.h"
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
  {
    ExactMatrix A = randomMatrix(6, 3, rng);
    ExactVector b = randomVector(6, rng);
    x = g.addLinear(x, std::move(A), std::move(b), "lin0");
  }
  x = g.addReLU(x, "relu");
  ExactMatrix diag = ExactMatrix::fromEntries(6, 6,
                                              {{0, 0, Exact::rational(1, 2)},
                                               {1, 1, Exact(1)},
                                               {3, 3, Exact::rational(-3, 4)},
                                               {5, 5, Exact::rational(9, 10)}});
  {
    ExactMatrix B = randomMatrix(6, 6, rng);
    ExactVector bias = randomVector(6, rng);
    ExactVector init = randomVector(6, rng);
    x = g.addLinState(x, diag, std::move(B), std::move(bias), std::move(init), "diag");
  }
  {
    ExactMatrix A = randomMatrix(8, 6, rng);
    ExactVector b = randomVector(8, rng);
    x = g.addLinear(x, std::move(A), std::move(b), "lin1");
  }
  x = g.addMulti(x, "multi");
  const Exact c = Exact::cosPi(1, 5), s = Exact::sinPi(1, 5);
  ExactMatrix rot = ExactMatrix::fromEntries(4, 4,
                                             {{0, 0, c},
                                              {0, 1, -s},
                                              {1, 0, s},
                                              {1, 1, c},
                                              {2, 2, Exact::rational(1, 2)},
                                              {3, 2, Exact::rational(1, 3)}});
  {
    ExactMatrix B = randomMatrix(4, 4, rng);
    ExactVector bias = randomVector(4, rng);
    ExactVector init = randomVector(4, rng);
    x = g.addLinState(x, rot, std::move(B), std::move(bias), std::move(init), "rot");
  }
  ExactMatrix general = randomMatrix(4, 4, rng, 0.5).scaled(Exact::rational(1, 3));
  {
    ExactMatrix B = randomMatrix(4, 4, rng);
    ExactVector bias = randomVector(4, rng);
    ExactVector init = randomVector(4, rng);
    x = g.addLinState(x, general, std::move(B), std::move(bias), std::move(init), "general");
  }
  ExactMatrix A = randomMatrix(2, 4, rng);
  ExactVector b = randomVector(2, rng);
  g.setOutput(g.addLinear(x, std::move(A), std::move(b), "out"));
  return g;
}

// Input(3) → Linear → ReLU → LinState (diagonal) → LinState (general) → Linear: for the
// targets that refuse a Multi (linear-rnn, rnn).
inline Graph multiFreePath(std::mt19937_64& rng) {
  Graph g;
  NodeId x = g.addInput(3, "x");
  {
    ExactMatrix A = randomMatrix(5, 3, rng);
    ExactVector b = randomVector(5, rng);
    x = g.addLinear(x, std::move(A), std::move(b), "lin0");
  }
  x = g.addReLU(x, "relu");
  ExactMatrix diag = ExactMatrix::fromEntries(
      5, 5, {{0, 0, Exact::rational(1, 2)}, {2, 2, Exact(1)}, {4, 4, Exact::rational(-2, 3)}});
  {
    ExactMatrix B = randomMatrix(5, 5, rng);
    ExactVector bias = randomVector(5, rng);
    ExactVector init = randomVector(5, rng);
    x = g.addLinState(x, diag, std::move(B), std::move(bias), std::move(init), "diag");
  }
  ExactMatrix general = randomMatrix(3, 3, rng, 0.5).scaled(Exact::rational(1, 3));
  {
    ExactMatrix B = randomMatrix(3, 5, rng);
    ExactVector bias = randomVector(3, rng);
    ExactVector init = randomVector(3, rng);
    x = g.addLinState(x, general, std::move(B), std::move(bias), std::move(init), "general");
  }
  ExactMatrix A = randomMatrix(2, 3, rng);
  ExactVector b = randomVector(2, rng);
  g.setOutput(g.addLinear(x, std::move(A), std::move(b), "out"));
  return g;
}

inline std::vector<float> randomTokens(const float_batch::SeriesShape& shape,
                                       std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> t(static_cast<size_t>(shape.batch) * shape.steps * shape.channels);
  for (float& x : t) x = u(rng);
  return t;
}

}  // namespace lsrl::testing_paths
