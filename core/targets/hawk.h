// Hawk target (docs/spec/targets.md §5): recurrentgemma-style residual blocks (recurrent
// block + gated MLP block) with every sigmoid and GeLU replaced by ReLU, RMSNorm omitted,
// built from a linear-state NF model. The RG-LRU only passes values through (decay base
// ReLU(Λ) = 0, r = 1, so α = 0); each LinState lives in the depthwise Conv1D, one channel
// per (state row, input column) pair plus a constant channel, with a window as long as
// the horizon T (§5.2–5.3). MLP blocks compute the NF layer's ReLU stages and product
// (§5.4). Residual streams are kept and compensated exactly with "clear" channels.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/io/tensor.h"
#include "core/targets/normal_form.h"
#include "core/targets/tensor_codec.h"

namespace lsrl {

template <class S>
struct HawkBlock {
  using Matrix = typename NfTypes<S>::Matrix;
  // Recurrent block (D_R channels).
  Matrix linearX;  // D_R x D
  std::vector<S> linearXBias;
  std::vector<S> convWeight;  // D_R x K row-major; [c][K−1−j] multiplies a_{t−j}
  std::vector<S> convBias;
  std::vector<S> aParam;  // Λ; the decay base is ReLU(Λ)
  Matrix aGate;           // D_R x D_R
  std::vector<S> aGateBias;
  Matrix inputGate;  // D_R x D_R
  std::vector<S> inputGateBias;
  Matrix linearY;  // D_R x D
  std::vector<S> linearYBias;
  Matrix linearOut;  // D x D_R
  std::vector<S> linearOutBias;
  // Gated MLP block (M channels): down (ReLU(gate v + b) ⊙ (up v + b)) + b.
  Matrix mlpGate;  // M x D
  std::vector<S> mlpGateBias;
  Matrix mlpUp;  // M x D
  std::vector<S> mlpUpBias;
  Matrix mlpDown;  // D x M
  std::vector<S> mlpDownBias;
  // Provenance (metadata).
  std::string role;     // "state" | "identity"
  std::string mlpRole;  // "stage" | "product"
  int nfLayer = 0;
  int channelsUsed = 0;
  int mlpChannelsUsed = 0;
};

template <class S>
struct HawkModel {
  using Matrix = typename NfTypes<S>::Matrix;
  int inputDim = 0;
  int D = 0;          // stream width
  int DR = 0;         // recurrent channels per block
  int M = 0;          // MLP channels per block
  int convWidth = 1;  // K
  bool residual = true;
  int lruC = 8;
  int maxSeqLen = 0;  // T; 0: exact for every length (every kernel vanished before T)
  Matrix embed;       // D x d_x
  std::vector<S> embedBias;
  std::vector<HawkBlock<S>> blocks;
  Matrix readoutW;  // d_out x D
  std::vector<S> readoutB;

  int outputDim() const { return readoutW.rows(); }
  void validate() const;  // throws lsrl::Error naming the block and the tensor
};

// `linearNf` must have linear states only. `horizon` T caps the conv window; 0 asks for
// an exact-for-all-lengths model, which exists only when every A^j [B, β] vanishes, and
// throws lsrl::Error naming the layer otherwise.
HawkModel<Exact> buildHawk(const NfModel<Exact>& linearNf, bool residual, int horizon);

HawkModel<double> toFloat(const HawkModel<Exact>& model);

// One output per token. The exact pass evaluates the RG-LRU's ReLU(Λ)^(c·r) and
// sqrt(1 − α²) only for α ∈ {0, 1} and throws otherwise; both passes throw for a sequence
// longer than maxSeqLen.
template <class S>
std::vector<std::vector<S>> runHawk(const HawkModel<S>& model,
                                    const std::vector<std::vector<S>>& tokens);
extern template std::vector<std::vector<double>> runHawk<double>(
    const HawkModel<double>&, const std::vector<std::vector<double>>&);
extern template std::vector<std::vector<Exact>> runHawk<Exact>(
    const HawkModel<Exact>&, const std::vector<std::vector<Exact>>&);

// §8 names (recurrentgemma): embed.*, blocks.{k}.recurrent.{linear_x, conv_1d, rg_lru.*,
// linear_y, linear_out}.*, blocks.{k}.mlp.{gate, up, down}.*, readout.*.
std::vector<Tensor> hawkTensors(const HawkModel<Exact>& model);
// residual, norm, conv_width, lru_c, lru_base, D, D_R, M, max_seq_len and blocks
// [{index, channels_used, mlp_channels_used, role, mlp_role, nf_layer}].
nlohmann::json hawkMetadata(const HawkModel<Exact>& model);
HawkModel<double> hawkFromTensors(const TensorSource& tensors, const nlohmann::json& meta);

}  // namespace lsrl
