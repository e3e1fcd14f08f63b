// A compiled path graph (Input → Linear / ReLU / Multi / LinState → …) as fp32 layers, the
// form both batch runners execute: the CPU one (cpu_runner.h) and the Vulkan one
// (core/vulkan). Every coefficient is the nearest float of the exact value (through its
// nearest double). A LinState becomes its drive u_t = B·x_t + bias (a matrix times every
// token at once) and a recurrence h_t = A h_{t−1} + u_t classified by the structure of A:
// diagonal (a scan), 2×2 blocks on even offsets (a block scan), or general.
#pragma once

#include <string>
#include <vector>

#include "core/batch/layouts.h"
#include "core/graph/graph.h"

namespace lsrl::batch {

enum class Recurrence { Diagonal, Blocks2, General };

struct Layer {
  enum class Kind { Linear, Relu, Multi, LinState };
  Kind kind = Kind::Linear;
  int inWidth = 0;
  int outWidth = 0;
  std::string source;  // "node 12 (LinState 'Pass+query')"

  // Linear: y = A x + bias. LinState: its drive, u = B x + bias.
  CsrMatrix A;
  std::vector<float> bias;

  // LinState: h_t = S h_{t−1} + u_t from h_{−1} = init.
  Recurrence recurrence = Recurrence::Diagonal;
  std::vector<float> diagonal;  // Diagonal: S[c][c]
  std::vector<float> blocks;    // Blocks2: [k][2][2], channels 2k, 2k+1
  CsrMatrix state;              // General: S
  std::vector<float> init;
};

struct LayerProgram {
  int inputWidth = 0;
  int outputWidth = 0;
  std::vector<Layer> layers;
  // The widest vector any layer reads or writes (for buffer sizing).
  int maxWidth() const;
};

// Throws lsrl::Error naming the node when the graph is not a path of runnable layers
// (a node read twice, a Concat of several nodes, unconnected inputs).
LayerProgram layerProgramFromPath(const Graph& path);

std::string_view recurrenceName(Recurrence r);  // "diagonal", "2x2 blocks", "general"

}  // namespace lsrl::batch
