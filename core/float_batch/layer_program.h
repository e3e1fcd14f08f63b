// A model as fp32 layers over whole token series, the form both batch runners execute: the
// CPU one (cpu_runner.h) and the Vulkan one (core/gpu). The same layers hold doubles for
// the Vulkan runner's fp64 path (BasicLayerProgram<double>, compiled paths only). A compiled path
// graph (Input → Linear / ReLU / Multi / LinState → …) becomes a chain; the target architectures
// (target_program.h) add branches and residual streams, so a layer names what it reads.
// Every coefficient is the nearest float (double) of the exact value (a float through its
// nearest double).
// A LinState becomes its drive u_t = B·x_t + bias (a matrix times every token at once) and
// a recurrence h_t = A h_{t−1} + u_t classified by the structure of A: diagonal (a scan),
// 2×2 blocks on even offsets (a block scan), or general.
#pragma once

#include <string>
#include <vector>

#include "core/float_batch/gated_cells.h"  // GruRule
#include "core/float_batch/layouts.h"
#include "core/graph/graph.h"

namespace lsrl::float_batch {

enum class Recurrence { Diagonal, Blocks2, General };

// What a layer reads: earlier layers' outputs by index, or the program's tokens.
constexpr int kTokens = -1;

enum class LayerKind {
  Linear,    // y = A x + bias
  Relu,      // y = max(x, 0)
  Multi,     // LSRL's gate: a row of 2h values becomes the h products of its halves
  LinState,  // u = A x + bias (the drive), h_t = S h_{t−1} + u_t (ReLU'd with reluState)
  Add,       // y = x0 + x1 (residual streams)
  Mul,       // y = x0 ⊙ x1 (gated branches)
  Conv1d,    // depthwise causal: y_t[c] = bias[c] + Σ_j taps[c][K−1−j] x_{t−j}[c]
  RgLru,  // inputs {u, r, i}: h_t = α ⊙ h_{t−1} + √(1−α²) ⊙ (i ⊙ u), α = base^(lruC·r)
  GruCell,   // input gi = W_ih x + b_ih (3H); state = W_hh, bias = b_hh, init = h0
  LstmCell,  // input gi (4H); state = W_hh, bias = b_hh, init = h0, cellInit = c0
};

// Values are float (the fp32 runners) or double (the Vulkan runner's fp64 path).
template <class Scalar>
struct BasicLayer {
  using Kind = LayerKind;
  Kind kind = Kind::Linear;
  std::vector<int> inputs;  // indices of earlier layers or kTokens; one, except Add/Mul/RgLru
  int inWidth = 0;          // the width of inputs[0]
  int outWidth = 0;
  std::string source;  // "node 12 (LinState 'Pass+query')", "gru layer 1"

  // Linear: y = A x + bias. LinState: its drive, u = A x + bias. Conv1d, GruCell, LstmCell:
  // bias as above.
  BasicCsrMatrix<Scalar> A;
  std::vector<Scalar> bias;

  // LinState: h_t = S h_{t−1} + u_t from h_{−1} = init.
  Recurrence recurrence = Recurrence::Diagonal;
  std::vector<Scalar> diagonal;  // Diagonal: S[c][c]; RgLru: the decay base ReLU(Λ)[c]
  std::vector<Scalar> blocks;    // Blocks2: [k][2][2], channels 2k, 2k+1
  BasicCsrMatrix<Scalar> state;  // General: S; GruCell / LstmCell: W_hh
  std::vector<Scalar> init;      // LinState, GruCell, LstmCell: h before t = 0 (RgLru: 0)
  bool reluState = false;        // LinState (General only): h_t = ReLU(S h_{t−1} + u_t)

  std::vector<Scalar> taps;  // Conv1d: [C][K]
  int convWidth = 1;         // Conv1d: K
  Scalar lruC = 8;           // RgLru
  GruRule gruRule = GruRule::Pytorch;
  std::vector<Scalar> cellInit;  // LstmCell: c before t = 0
};

using Layer = BasicLayer<float>;
using Layer64 = BasicLayer<double>;

template <class Scalar>
struct BasicLayerProgram {
  int inputWidth = 0;
  int outputWidth = 0;
  std::vector<BasicLayer<Scalar>>
      layers;  // the output is the last layer's (the tokens without layers)
  // The longest sequence the model is built for (hawk's conv window); 0: any length.
  int maxSteps = 0;
  std::string name;  // what the runners' errors call it: "hawk", "model"
  // The widest vector any layer reads or writes (for buffer sizing).
  int maxWidth() const;
  // Checks every layer's inputs (earlier layers, widths as the kind needs) and parameter
  // sizes; throws lsrl::Error naming the layer (its source) and expected vs got.
  void validate() const;
};
using LayerProgram = BasicLayerProgram<float>;
using LayerProgram64 = BasicLayerProgram<double>;

// Which buffer holds each layer's output while a tile runs, shared by both runners so they
// use memory alike: a layer's buffer is reused once every reader has run, and element-wise
// layers (Relu, Add, Mul) write into their first input's buffer when it dies with them.
// keepEveryLayer gives each layer a buffer of its own (per-layer traces).
struct BufferPlan {
  std::vector<int> bufferOf;     // per layer
  std::vector<int> bufferWidth;  // per buffer: the widest layer it holds (values per row)
  template <class Scalar>        // writes over inputs[0]
  bool inPlace(const BasicLayerProgram<Scalar>& p, size_t layer) const;
};
template <class Scalar>
BufferPlan planBuffers(const BasicLayerProgram<Scalar>& program, bool keepEveryLayer);

// Throws lsrl::Error naming the node when the graph is not a path of runnable layers
// (a node read twice, a Concat of several nodes, unconnected inputs). Scalar = double gives
// the coefficients' nearest doubles, for the device's fp64 path.
template <class Scalar = float>
BasicLayerProgram<Scalar> layerProgramFromPath(const Graph& path);

std::string_view recurrenceName(Recurrence r);

// Sets a LinState layer's recurrence from its transition S: diagonal, 2×2 blocks or general.
template <class Scalar>
void classifyRecurrence(BasicLayer<Scalar>& layer, BasicCsrMatrix<Scalar> state);

// Throws lsrl::Error unless `steps` tokens per sequence are within the program's horizon;
// `runner` starts the message ("cpu runner").
template <class Scalar>
void checkHorizon(const BasicLayerProgram<Scalar>& program, int steps,
                  const std::string& runner);  // "diagonal", "2x2 blocks", "general"

}  // namespace lsrl::float_batch
