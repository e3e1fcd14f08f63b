// Target architectures built from a path graph (architectures.md §1.2, §2, §8).
//
//   TargetModel m = buildTarget(pathGraph, Target::GatedRnn);
//   auto outputs = m.run(exactTokens);        // exact forward pass
//   auto tensors = m.tensors();               // named weights, row-major float64
//   nlohmann::json meta = m.metadata();       // the "lsrl" metadata of §8
//
// The NF family (linear-rnn, gated-linear-rnn, rnn, gated-rnn) is built here; gru,
// lstm and hawk are not implemented yet (buildTarget throws lsrl::Error).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/normal_form.h"
#include "core/arch/positivity.h"
#include "core/graph/graph.h"

namespace lsrl {

enum class Target : uint8_t { LinearRnn, GatedLinearRnn, Rnn, GatedRnn, Gru, Lstm, Hawk };

// "linear-rnn", "gated-linear-rnn", "rnn", "gated-rnn", "gru", "lstm", "hawk".
std::string_view targetName(Target t);
std::optional<Target> targetFromName(std::string_view name);
// The metadata "arch" value: "linear_rnn", "gated_linear_rnn", "rnn", "gated_rnn", ...
std::string_view targetArchName(Target t);
const std::vector<Target>& allTargets();

// One exported tensor: its name (§8), shape, and values in row-major order.
struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

enum class Positivity : uint8_t { Split, Shift };

struct TargetOptions {
  std::string sourceName;  // program name, recorded in metadata "source"
  std::string sourceHash;  // graph hash, recorded in metadata "source"
  // rnn / gated-rnn only: §2.1 split (default, no assumption) or §2.2 shift, which
  // needs the input box and the horizon T of `shift`.
  Positivity positivity = Positivity::Split;
  ShiftOptions shift;
};

struct TargetModel {
  Target target = Target::GatedLinearRnn;
  std::string positivity = "none";  // "none" | "split" | "shift"
  NfModel<Exact> nf;                // the model (NF family), exact
  std::vector<ExactVector> shiftC;  // shift only: c per layer (already folded in)
  TargetOptions options;

  NfModel<double> floatModel() const { return toFloat(nf); }
  std::vector<std::vector<Exact>> run(const std::vector<std::vector<Exact>>& tokens) const;
  std::vector<std::vector<double>> runFloat(const std::vector<std::vector<double>>& tokens) const;

  // §8 names: layers.{l}.state.A/.B/.bias/.s0, layers.{l}.f.{k}.weight/.bias,
  // layers.{l}.g.{k}.weight/.bias (gated layers), layers.{l}.positivity.c (shift),
  // readout.weight/.bias; l and k count from 0.
  std::vector<NamedTensor> tensors() const;
  nlohmann::json metadata() const;
};

// The first Multi node of a path graph, or kNoNode.
NodeId firstMulti(const Graph& path);

// Builds `target` from a path graph. linear-rnn and rnn refuse programs with a Multi
// (the error names the first one); gru, lstm and hawk throw "not implemented yet".
TargetModel buildTarget(const Graph& path, Target target, const TargetOptions& options = {});

// The NF-family tensors of any NF model (used by TargetModel::tensors()).
// `shiftC`, if not empty, adds layers.{l}.positivity.c.
std::vector<NamedTensor> normalFormTensors(const NfModel<Exact>& nf,
                                           const std::vector<ExactVector>& shiftC = {});

}  // namespace lsrl
