// The gated layer normal form (NF) of docs/spec/targets.md §1: a stack of recurrent
// layers, each a state update followed by one (ungated) or two (gated) ReLU MLPs whose
// outputs are multiplied, plus an affine readout. It is the common intermediate from
// which every target architecture is built.
//
//   NfModel<Exact> nf = compileNormalForm(pathGraph);   // §1.3, exact, no rounding
//   NfModel<double> f = toFloat(nf);                      // float64 copy
//   auto outputs = runNormalForm(nf, tokens);             // one output per token
//
// NfModel<Exact> stores ExactMatrix (sparse, exact); NfModel<double> stores
// FloatMatrix (sparse, compressed rows). Both run through the same forward pass; the
// exact one uses no floating point.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/matrix.h"
#include "core/numbers/exact.h"

namespace lsrl {

// A sparse float64 matrix in compressed rows, with the accessors of ExactMatrix that
// the forward pass uses. Zeros are not stored.
class FloatMatrix {
 public:
  struct Entry {
    int row;
    int col;
    double value;
  };

  FloatMatrix() = default;
  FloatMatrix(int rows, int cols);  // all zeros
  // Entries in any order; duplicates are summed, zeros dropped.
  static FloatMatrix fromEntries(int rows, int cols, std::vector<Entry> entries);
  static FloatMatrix fromExact(const ExactMatrix& m);  // nearest doubles

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  size_t nonZeros() const { return values_.size(); }
  double at(int row, int col) const;
  std::vector<Entry> entries() const;  // row-major order
  std::vector<double> dense() const;   // row-major, rows x cols

  const std::vector<int64_t>& rowStart() const { return rowStart_; }
  const std::vector<int>& colIndex() const { return colIndex_; }
  const std::vector<double>& values() const { return values_; }

 private:
  int rows_ = 0;
  int cols_ = 0;
  std::vector<int64_t> rowStart_{0};
  std::vector<int> colIndex_;
  std::vector<double> values_;
};

// The nearest doubles of exact entries.
std::vector<double> toDoubles(const ExactVector& v);

template <class S>
struct NfTypes;
template <>
struct NfTypes<double> {
  using Matrix = FloatMatrix;
};
template <>
struct NfTypes<Exact> {
  using Matrix = ExactMatrix;
};

enum class StateUpdate : uint8_t { Linear, Relu };
const char* stateUpdateName(StateUpdate u);  // "linear" | "relu"

// z ↦ ReLU(W z + b)
template <class S>
struct NfReluLayer {
  typename NfTypes<S>::Matrix W;
  std::vector<S> b;
};

template <class S>
struct NfLayer {
  using Matrix = typename NfTypes<S>::Matrix;
  // s_t = A s_{t-1} + B u_t + bias   (linear)  or  ReLU(...) (relu); s_0 = s0.
  Matrix A;
  Matrix B;
  std::vector<S> bias;
  std::vector<S> s0;
  StateUpdate update = StateUpdate::Linear;
  // f = F(s), g = G(s); y = f ⊙ g (gated) or y = f (ungated, g empty). An empty F
  // (never produced by the compiler) makes f = s.
  std::vector<NfReluLayer<S>> f;
  std::vector<NfReluLayer<S>> g;
  bool gated = false;

  int stateDim() const { return A.rows(); }
  int inputDim() const { return B.cols(); }
  int outputDim() const;
};

template <class S>
struct NfModel {
  using Matrix = typename NfTypes<S>::Matrix;
  int inputDim = 0;
  std::vector<NfLayer<S>> layers;
  Matrix readoutW;  // d_out x d_y(last layer), or d_out x inputDim without layers
  std::vector<S> readoutB;

  int outputDim() const { return readoutW.rows(); }
  // Checks every shape; throws lsrl::Error naming the layer and the tensor.
  void validate() const;
};

// Compiles a path graph (Input, then a chain of Linear / ReLU / LinState / Multi;
// single-input Concats are skipped) into NF, following docs/spec/targets.md §1.3. Every
// state update is linear. Throws lsrl::Error naming the node if the graph is not such
// a path.
NfModel<Exact> compileNormalForm(const Graph& path);

// The path's nodes after the Input, in order (single-input Concats included). Throws
// lsrl::Error naming the offending node if the graph is not a path.
std::vector<NodeId> pathNodes(const Graph& path);

NfModel<double> toFloat(const NfModel<Exact>& model);

// The forward pass: every state reset to s0, then one output per token. If `states`
// is given, it receives [layer][token] the state after its update.
template <class S>
std::vector<std::vector<S>> runNormalForm(
    const NfModel<S>& model, const std::vector<std::vector<S>>& tokens,
    std::vector<std::vector<std::vector<S>>>* states = nullptr);

extern template std::vector<std::vector<double>> runNormalForm<double>(
    const NfModel<double>&, const std::vector<std::vector<double>>&,
    std::vector<std::vector<std::vector<double>>>*);
extern template std::vector<std::vector<Exact>> runNormalForm<Exact>(
    const NfModel<Exact>&, const std::vector<std::vector<Exact>>&,
    std::vector<std::vector<std::vector<Exact>>>*);

}  // namespace lsrl
