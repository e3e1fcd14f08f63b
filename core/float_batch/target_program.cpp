#include "core/float_batch/target_program.h"

#include <algorithm>
#include <string>
#include <variant>

namespace lsrl::float_batch {

namespace {

std::vector<float> toFloats(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

// Entries that round to 0 in fp32 are dropped (they contribute nothing in fp32).
CsrMatrix toCsr(const FloatMatrix& m) {
  CsrMatrix out;
  out.rows = m.rows();
  out.cols = m.cols();
  for (int r = 0; r < m.rows(); ++r) {
    for (int64_t k = m.rowStart()[static_cast<size_t>(r)];
         k < m.rowStart()[static_cast<size_t>(r) + 1]; ++k) {
      const float v = static_cast<float>(m.values()[static_cast<size_t>(k)]);
      if (v == 0.0f) continue;
      out.col.push_back(static_cast<uint32_t>(m.colIndex()[static_cast<size_t>(k)]));
      out.val.push_back(v);
    }
    out.rowPtr.push_back(static_cast<uint32_t>(out.col.size()));
  }
  return out;
}

// Appends layers to a program and hands out their indices.
class Builder {
 public:
  explicit Builder(int inputWidth) { program_.inputWidth = inputWidth; }

  int width(int layer) const {
    return layer == kTokens ? program_.inputWidth
                            : program_.layers[static_cast<size_t>(layer)].outWidth;
  }
  int add(Layer layer) {
    layer.inWidth = width(layer.inputs.at(0));
    program_.layers.push_back(std::move(layer));
    return static_cast<int>(program_.layers.size()) - 1;
  }
  int linear(int in, const FloatMatrix& W, const std::vector<double>& b, std::string source) {
    Layer L;
    L.kind = Layer::Kind::Linear;
    L.inputs = {in};
    L.outWidth = W.rows();
    L.A = toCsr(W);
    L.bias = toFloats(b);
    L.source = std::move(source);
    return add(std::move(L));
  }
  int elementwise(Layer::Kind kind, std::vector<int> inputs, std::string source) {
    Layer L;
    L.kind = kind;
    L.outWidth = width(inputs.at(0));
    L.inputs = std::move(inputs);
    L.source = std::move(source);
    return add(std::move(L));
  }
  int relu(int in, std::string source) {
    return elementwise(Layer::Kind::Relu, {in}, std::move(source));
  }
  // Every target ends with its readout, so the output is the last layer.
  LayerProgram finish(int output, std::string name, int maxSteps = 0) {
    program_.outputWidth = width(output);
    program_.name = std::move(name);
    program_.maxSteps = maxSteps;
    program_.validate();
    return std::move(program_);
  }

 private:
  LayerProgram program_;
};

// s_t = A s_{t−1} + B u_t + bias (ReLU'd for a ReLU state), then f (⊙ g).
LayerProgram fromNormalForm(const NfModel<double>& m, std::string name) {
  Builder b(m.inputDim);
  int x = kTokens;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const NfLayer<double>& L = m.layers[l];
    const std::string at = "layer " + std::to_string(l);
    Layer state;
    state.kind = Layer::Kind::LinState;
    state.inputs = {x};
    state.outWidth = L.stateDim();
    state.A = toCsr(L.B);
    state.bias = toFloats(L.bias);
    state.init = toFloats(L.s0);
    state.source = at + ": state";
    const CsrMatrix S = toCsr(L.A);
    if (L.update == StateUpdate::Relu) {
      state.recurrence = Recurrence::General;
      state.reluState = true;
      state.state = S;
    } else {
      classifyRecurrence(state, S);
    }
    const int s = b.add(std::move(state));
    auto branch = [&](const std::vector<NfReluLayer<double>>& mlp, const char* name) {
      int z = s;
      for (size_t k = 0; k < mlp.size(); ++k) {
        const std::string src = at + ": " + name + "." + std::to_string(k);
        z = b.relu(b.linear(z, mlp[k].W, mlp[k].b, src), src + " ReLU");
      }
      return z;
    };
    const int f = branch(L.f, "f");
    x = L.gated ? b.elementwise(Layer::Kind::Mul, {f, branch(L.g, "g")}, at + ": f ⊙ g") : f;
  }
  return b.finish(b.linear(x, m.readoutW, m.readoutB, "readout"), std::move(name));
}

// Per layer: gi = W_ih x + b_ih for every token at once, then the sequential cell.
template <class Model>
LayerProgram fromGatedRnn(const Model& m, const std::string& kind, Layer::Kind cell, GruRule rule) {
  Builder b(m.inputDim);
  int x = kTokens;
  for (size_t k = 0; k < m.layers.size(); ++k) {
    const auto& L = m.layers[k];
    const std::string at = kind + " layer " + std::to_string(k);
    Layer c;
    c.kind = cell;
    c.inputs = {b.linear(x, L.weightIh, L.biasIh, at + ": W_ih")};
    c.outWidth = L.hiddenSize();
    c.state = toCsr(L.weightHh);
    c.bias = toFloats(L.biasHh);
    c.init = toFloats(L.h0);
    c.gruRule = rule;
    if constexpr (requires { L.c0; }) c.cellInit = toFloats(L.c0);
    c.source = at + ": cell (" + L.role + ")";
    x = b.add(std::move(c));
  }
  return b.finish(b.linear(x, m.readoutW, m.readoutB, "readout"), kind);
}

// recurrentgemma's residual blocks as runHawk computes them (core/targets/hawk.cpp).
LayerProgram fromHawk(const HawkModel<double>& m) {
  Builder b(m.inputDim);
  int v = b.linear(kTokens, m.embed, m.embedBias, "embed");
  for (size_t k = 0; k < m.blocks.size(); ++k) {
    const HawkBlock<double>& B = m.blocks[k];
    const std::string at = "hawk block " + std::to_string(k) + ": ";
    Layer conv;
    conv.kind = Layer::Kind::Conv1d;
    conv.inputs = {b.linear(v, B.linearX, B.linearXBias, at + "linear_x")};
    conv.outWidth = m.DR;
    conv.taps = toFloats(B.convWeight);
    conv.convWidth = m.convWidth;
    conv.bias = toFloats(B.convBias);
    conv.source = at + "conv1d";
    const int u = b.add(std::move(conv));
    const int r = b.relu(b.linear(u, B.aGate, B.aGateBias, at + "a_gate"), at + "a_gate ReLU");
    const int i = b.relu(b.linear(u, B.inputGate, B.inputGateBias, at + "input_gate"),
                         at + "input_gate ReLU");
    const int y =
        b.relu(b.linear(v, B.linearY, B.linearYBias, at + "linear_y"), at + "linear_y ReLU");
    Layer lru;
    lru.kind = Layer::Kind::RgLru;
    lru.inputs = {u, r, i};
    lru.outWidth = m.DR;
    lru.lruC = static_cast<float>(m.lruC);
    for (const double a : B.aParam) lru.diagonal.push_back(std::max(0.0f, static_cast<float>(a)));
    lru.source = at + "rg_lru";
    const int h = b.add(std::move(lru));
    const int yh = b.elementwise(Layer::Kind::Mul, {y, h}, at + "y ⊙ h");
    const int rec = b.linear(yh, B.linearOut, B.linearOutBias, at + "linear_out");
    v = m.residual ? b.elementwise(Layer::Kind::Add, {v, rec}, at + "residual") : rec;
    const int gate =
        b.relu(b.linear(v, B.mlpGate, B.mlpGateBias, at + "mlp.gate"), at + "mlp.gate ReLU");
    const int up = b.linear(v, B.mlpUp, B.mlpUpBias, at + "mlp.up");
    const int gu = b.elementwise(Layer::Kind::Mul, {gate, up}, at + "mlp gate ⊙ up");
    const int down = b.linear(gu, B.mlpDown, B.mlpDownBias, at + "mlp.down");
    v = m.residual ? b.elementwise(Layer::Kind::Add, {v, down}, at + "mlp residual") : down;
  }
  return b.finish(b.linear(v, m.readoutW, m.readoutB, "readout"), "hawk", m.maxSeqLen);
}

}  // namespace

LayerProgram layerProgramFromTarget(const FloatTargetModel& model) {
  return std::visit(
      [&](const auto& m) -> LayerProgram {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, NfModel<double>>) {
          return fromNormalForm(m, std::string(targetName(model.target)));
        } else if constexpr (std::is_same_v<M, GruModel<double>>) {
          return fromGatedRnn(m, "gru", Layer::Kind::GruCell,
                              m.update == GruUpdate::Paper ? GruRule::Paper : GruRule::Pytorch);
        } else if constexpr (std::is_same_v<M, LstmModel<double>>) {
          return fromGatedRnn(m, "lstm", Layer::Kind::LstmCell, GruRule::Pytorch);
        } else {
          return fromHawk(m);
        }
      },
      model.model);
}

}  // namespace lsrl::float_batch
