// The host's steps at both ends of a seed model's forward pass on the device, shared by the
// backends that run a batch of sequences of one length layer by layer (gateloop_device.cpp,
// min_rnn_device.cpp): embedding the batch before the first layer, and the head with the
// trace's "output" after the last.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/seed_models/model_common.h"
#include "core/util/error.h"
#include "core/util/parallel_for.h"

namespace lsrl::gpu {

// A model with the steps of its run around the layers (GateLoopModel, MinRnnModel).
template <class Model>
concept EmbedsAndHeads = requires(const Model& model, const seed_models::Sequence& x) {
  { model.embed(x) } -> std::same_as<seed_models::Sequence>;
  { model.head(x) } -> std::same_as<seed_models::Sequence>;
  { model.outputWidth() } -> std::convertible_to<int64_t>;
};

// Each sequence's embedding. Throws lsrl::Error "<backend>: sequence <b>: ..." for a
// sequence whose length differs from sequence 0's (a batch needs one length) or whose tokens
// the embedding rejects; a lone sequence's error is "<backend>: <the embedding's message>".
template <EmbedsAndHeads Model>
std::vector<seed_models::Sequence> embedOneLength(const Model& model,
                                                  std::span<const seed_models::Sequence> seqs,
                                                  const std::string& backend) {
  auto numbered = [&backend](size_t b, const std::string& message) {
    return Error(backend + ": sequence " + std::to_string(b) + ": " + message);
  };
  for (size_t b = 0; b < seqs.size(); ++b)
    if (seqs[b].size() != seqs[0].size())
      throw numbered(b, std::to_string(seqs[b].size()) + " tokens, sequence 0 has " +
                            std::to_string(seqs[0].size()) + " (a batch needs one length)");
  std::vector<seed_models::Sequence> xs(seqs.size());
  parallelFor(seqs.size(), [&](size_t b) {
    try {
      xs[b] = model.embed(seqs[b]);
    } catch (const Error& e) {
      if (seqs.size() == 1) throw Error(backend + ": " + e.what());
      throw numbered(b, e.what());
    }
  });
  return xs;
}

// The logits of each sequence from its last layer's output; with `trace`, the first
// sequence's logits as "output" [T][outputWidth].
template <EmbedsAndHeads Model>
std::vector<seed_models::Sequence> headWithTrace(const Model& model,
                                                 const std::vector<seed_models::Sequence>& xs,
                                                 seed_models::Trace* trace) {
  std::vector<seed_models::Sequence> outs(xs.size());
  parallelFor(xs.size(), [&](size_t b) { outs[b] = model.head(xs[b]); });
  if (trace) {
    std::vector<double> flat;
    for (const seed_models::Vector& row : outs[0]) flat.insert(flat.end(), row.begin(), row.end());
    trace->add("output", {static_cast<int64_t>(outs[0].size()), model.outputWidth()}, flat);
  }
  return outs;
}

}  // namespace lsrl::gpu
