// The compiled evaluation plan of an LSRL program (docs/spec/language.md §1): built once from a
// Graph, immutable afterwards, shared by every executor and thread that runs it.
//
// Every program node's value lives in one flat value buffer, described by a list of
// buffer slots ("positions"). Nodes that only move values around cost nothing per token:
//  - Concat and Slice (and every Linear that is a pure 0/1 selection with zero offset)
//    are views: their positions are their inputs' positions, nothing is copied;
//  - nodes that depend on no token (a Linear with A = 0, and everything computed only
//    from such nodes) are folded once at plan time into the reset image of the buffer.
// What remains is one flat instruction array (Linear as compressed sparse rows over
// absolute buffer slots, with gather/scale fast paths for one-non-zero-per-row and
// scaled-identity matrices; ReLU; Multi; LinState writing its state slice in place)
// evaluated in Graph::topologicalOrder().
//
// Two numeric modes share this structure: float64 (coefficients are the nearest doubles
// of the exact entries) and exact (every coefficient lifted once into the graph's field
// Q(cos 2π/N); no floating point at all on that path).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/numbers/exact.h"

namespace lsrl {

template <class V>
class Executor;
template <class V>
class Trace;

struct PlanOptions {
  // Prepare the exact path (lift every coefficient into the field). Without it only
  // float64 executors can run the plan.
  bool exact = true;
  // Exact inputs must lie in the plan's field Q(cos 2π/N), N = lcm(graph.conductor(),
  // extraConductor). Raise it when tokens hold constants the program itself does not
  // (e.g. 20 for sqrt(5) in a rational program).
  long long extraConductor = 4;
  // Compiled paths are huge when counted densely (10^12 entries for tok2tok L=10) but
  // sparse. This validates with requireValidPath (no dense-size limit) instead of
  // requireValid.
  bool allowHugeSparse = false;
};

class Plan {
 public:
  // Validates the graph (requireValid) and compiles it. Throws lsrl::Error.
  explicit Plan(const Graph& graph, PlanOptions options = {});
  // Out of line: the exact path's e-antic elements stay out of this header.
  ~Plan();
  static std::shared_ptr<const Plan> make(const Graph& graph, PlanOptions options = {});

  NodeId inputNode() const { return inputNode_; }
  NodeId outputNode() const { return outputNode_; }
  int inputWidth() const { return inputWidth_; }
  int outputWidth() const { return static_cast<int>(outputPos_.size()); }
  // The program's nodes (ancestors of the output) in Graph::topologicalOrder().
  const std::vector<NodeId>& order() const { return order_; }
  bool isProgramNode(NodeId id) const;
  int width(NodeId id) const;  // throws for nodes outside the program
  // The program's LinState nodes in order(): the nodes Executor::setState accepts.
  const std::vector<NodeId>& linStates() const { return linStates_; }

  bool hasExact() const { return field_ != nullptr; }
  const CosField& field() const;  // throws without the exact path

  struct Stats {
    int programNodes = 0;
    int views = 0;            // Concat / Slice / selection Linears: no per-token work
    int folded = 0;           // token-independent nodes computed once at plan time
    int instructions = 0;     // per-token instructions
    int csrInstructions = 0;  // general sparse Linear / LinState
    int gatherInstructions = 0;
    int affineInstructions = 0;
    int reluInstructions = 0;
    int multiInstructions = 0;
    long long nonZeros = 0;  // coefficients touched per token
    int bufferSlots = 0;
  };
  const Stats& stats() const { return stats_; }
  std::string describe() const;  // one line of the stats

  // --- Internals shared with the executors (core/executor/executor.cpp). ---
  enum class Kind : uint8_t {
    Csr,  // out[r] = bias[r] + Σ val[k]·buf[col[k]], k in [rowPtr[coef + r], rowPtr[coef + r + 1])
    CsrScratch,   // the same into the scratch slots, then copied to out (LinState, A not diagonal)
    Gather,       // out[r] = val[coef + r]·buf[col[coef + r]] + bias[r]
    Affine,       // out[r] = val[coef]·buf[in + r] + bias[r]
    ReluContig,   // out[r] = max(0, buf[in + r])
    ReluGather,   // out[r] = max(0, buf[idx[in + r]])
    MultiContig,  // out[r] = buf[in + r]·buf[in + dim + r]
    MultiGather,  // out[r] = buf[idx[in + r]]·buf[idx[in + dim + r]]
  };
  // How an exact coefficient is applied: ±1 need no multiplication.
  enum class CoefKind : uint8_t { General, One, MinusOne };
  static constexpr uint8_t kHasBias = 1;  // Instr::flags: some offset entry is non-zero
  struct Instr {
    Kind kind;
    uint8_t flags;
    int32_t dim;   // rows written
    int32_t out;   // first output slot
    int32_t in;    // first input slot (contiguous kinds) or offset into idx
    int32_t coef;  // offset into rowPtr (Csr) or val (Gather, Affine)
    int32_t bias;  // offset into bias
  };

 private:
  template <class V>
  friend class Executor;
  template <class V>
  friend class Trace;
  friend class PlanBuilder;
  friend struct PlanKernels;

  NodeId inputNode_ = kNoNode;
  NodeId outputNode_ = kNoNode;
  int inputWidth_ = 0;
  int inputSlot_ = 0;
  int scratchSlot_ = 0;
  int maxRowTerms_ = 1;  // the most terms (products and the bias) of one CSR row

  std::vector<NodeId> order_;
  std::vector<NodeId> linStates_;      // program LinStates, in order_
  std::vector<int32_t> nodeFirstPos_;  // by node id: offset into pos_, -1 outside the program
  std::vector<int32_t> nodeDim_;       // by node id
  std::vector<int32_t> pos_;           // every program node's value slots, in order_
  std::vector<int32_t> outputPos_;

  std::vector<Instr> instrs_;      // per token
  std::vector<Instr> foldInstrs_;  // token-independent, run at plan time
  std::vector<int32_t> rowPtr_;    // CSR rows: offsets into col_ / val_ / exVal_
  std::vector<int32_t> col_;       // the slot each coefficient multiplies (parallel to val_)
  std::vector<int32_t> idx_;       // gathered inputs of ReLU / Multi

  // float64 path
  std::vector<double> val_;
  std::vector<double> bias_;
  std::vector<double> resetImage_;

  // exact path
  const CosField* field_ = nullptr;
  std::vector<eantic::renf_elem_class> exVal_;
  std::vector<CoefKind> exKind_;
  std::vector<eantic::renf_elem_class> exBias_;
  std::vector<eantic::renf_elem_class> exResetImage_;

  Stats stats_;
};

}  // namespace lsrl
