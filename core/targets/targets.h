// Target architectures built from a path graph (docs/spec/targets.md §1.2, §2–§5, §8).
//
//   TargetModel m = buildTarget(pathGraph, Target::Lstm);
//   auto outputs = m.run(exactTokens);        // exact forward pass
//   auto floats = m.runFloat(floatTokens);    // float64 forward pass
//   auto tensors = m.tensors();               // named weights, row-major float64
//   nlohmann::json meta = m.metadata();       // the "lsrl" metadata of §8
//
// The NF family (linear-rnn, gated-linear-rnn, rnn, gated-rnn) is the NF model itself;
// gru and lstm are built from the ReLU-state NF (positivity split by default), hawk from
// the linear NF (gru.h, lstm.h, hawk.h). import.h reads the tensors back.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/graph/graph.h"
#include "core/io/tensor.h"
#include "core/targets/gru.h"
#include "core/targets/hawk.h"
#include "core/targets/lstm.h"
#include "core/targets/normal_form.h"
#include "core/targets/positivity.h"

namespace lsrl {

enum class Target : uint8_t { LinearRnn, GatedLinearRnn, Rnn, GatedRnn, Gru, Lstm, Hawk };

// "linear-rnn", "gated-linear-rnn", "rnn", "gated-rnn", "gru", "lstm", "hawk".
std::string_view targetName(Target t);
std::optional<Target> targetFromName(std::string_view name);
// The metadata "arch" value: "linear_rnn", "gated_linear_rnn", "rnn", "gated_rnn", ...
std::string_view targetArchName(Target t);
const std::vector<Target>& allTargets();
// rnn, gated-rnn, gru and lstm: the targets whose states are non-negative (ReLU-state NF),
// the ones that read the positivity option.
bool hasNonNegativeStates(Target t);

enum class Positivity : uint8_t { Split, Shift };
// "split" or "shift".
std::optional<Positivity> positivityFromName(std::string_view name);

struct TargetOptions {
  std::string sourceName;  // program name, recorded in metadata "source"
  std::string sourceHash;  // graph hash, recorded in metadata "source"
  // rnn / gated-rnn / gru / lstm: §2.1 split (default, no assumption) or §2.2 shift,
  // which needs the input box and the horizon T of `shift`.
  Positivity positivity = Positivity::Split;
  // The input box and horizon T (§7): used by the shift, by gru's "pytorch" product for
  // its bound K, and by hawk for its conv window (horizon 0 there: exact for every
  // length, which only states that forget their inputs allow).
  ShiftOptions shift;
  GruUpdate gruUpdate = GruUpdate::Pytorch;  // gru: §3.1 (the default needs shift.horizon)
  bool stacked = false;      // gru / lstm: one module, every layer padded to one size (§3.3)
  bool hawkResidual = true;  // hawk: residual stream (§5.1)
  // lsrl compile --precision's record (domain, fitted constants, assumptions), written to
  // the metadata as "precision"; null when the constants are as built.
  nlohmann::json precision;
};

// A runnable float64 model of any target: what TargetModel::floatModel() derives from
// the exact weights, and what import.h rebuilds from a safetensors file. Both run the
// same code on the same doubles, so their outputs are bit-identical.
struct FloatTargetModel {
  Target target = Target::GatedLinearRnn;
  std::variant<NfModel<double>, GruModel<double>, LstmModel<double>, HawkModel<double>> model;

  int inputDim() const;
  int outputDim() const;
  std::vector<std::vector<double>> run(const std::vector<std::vector<double>>& tokens) const;
};

struct TargetModel {
  Target target = Target::GatedLinearRnn;
  std::string positivity = "none";  // "none" | "split" | "shift"
  // The NF family: the model itself. gru / lstm: the ReLU-state NF they were built from;
  // hawk: the linear NF it was built from.
  NfModel<Exact> nf;
  std::vector<ExactVector> shiftC;  // shift only: c per layer (already folded in)
  TargetOptions options;
  // gru / lstm / hawk: the built model (monostate for the NF family).
  std::variant<std::monostate, GruModel<Exact>, LstmModel<Exact>, HawkModel<Exact>> built;

  FloatTargetModel floatModel() const;
  std::vector<std::vector<Exact>> run(const std::vector<std::vector<Exact>>& tokens) const;
  std::vector<std::vector<double>> runFloat(const std::vector<std::vector<double>>& tokens) const;

  // §8 names. NF family: layers.{l}.state.A/.B/.bias/.s0, layers.{l}.f.{k}.weight/.bias,
  // layers.{l}.g.{k}.weight/.bias (gated layers), layers.{l}.positivity.c (shift),
  // readout.weight/.bias; l and k count from 0. gru / lstm / hawk: see their headers.
  // Every tensor is F64.
  std::vector<Tensor> tensors() const;
  nlohmann::json metadata() const;
};

// The first Multi node of a path graph, or kNoNode.
NodeId firstMulti(const Graph& path);

// Builds `target` from a path graph. linear-rnn and rnn refuse programs with a Multi
// (the error names the first one); gru with the "pytorch" update needs options.shift's
// box and horizon (for K); hawk needs the horizon unless every state forgets its input.
TargetModel buildTarget(const Graph& path, Target target, const TargetOptions& options = {});

// The NF-family tensors of any NF model (used by TargetModel::tensors()).
// `shiftC`, if not empty, adds layers.{l}.positivity.c.
std::vector<Tensor> normalFormTensors(const NfModel<Exact>& nf,
                                      const std::vector<ExactVector>& shiftC = {});

}  // namespace lsrl
