#include "core/executor/plan.h"

#include <numeric>
#include <sstream>

#include "core/executor/kernels.h"
#include "core/graph/checks.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr int32_t kZeroSlot = 0;  // always holds 0; rows without entries read it

bool contiguous(const std::vector<int32_t>& pos, size_t begin, size_t end) {
  for (size_t i = begin + 1; i < end; ++i) {
    if (pos[i] != pos[i - 1] + 1) return false;
  }
  return true;
}

}  // namespace

class PlanBuilder {
 public:
  PlanBuilder(Plan& p, const Graph& g, const PlanOptions& o) : p_(p), g_(g), opt_(o) {}

  void build() {
    if (opt_.allowHugeSparse) {
      requireValidPath(g_);
    } else {
      requireValid(g_);
    }
    if (opt_.exact) {
      const long long n = std::lcm(static_cast<long long>(g_.conductor()),
                                   std::max<long long>(1, opt_.extraConductor));
      p_.field_ = &CosField::get(n);
    }
    p_.order_ = g_.topologicalOrder();
    p_.inputNode_ = g_.input();
    p_.outputNode_ = g_.output();
    p_.nodeFirstPos_.assign(g_.nodeCount(), -1);
    p_.nodeDim_.assign(g_.nodeCount(), 0);
    pos_.assign(g_.nodeCount(), {});
    isConst_.push_back(1);  // kZeroSlot
    initAt_.push_back(-1);
    initFrom_.push_back(nullptr);

    for (NodeId id : p_.order_) {
      const Node& n = g_.node(id);
      switch (n.op) {
        case Op::Input:
          if (id != p_.inputNode_) {
            throw Error("Input node " + std::to_string(id) + ": a program has exactly one Input");
          }
          p_.inputWidth_ = n.dim;
          p_.inputSlot_ = allocate(n.dim, false);
          setContiguous(id, p_.inputSlot_, n.dim);
          break;
        case Op::Concat: {
          std::vector<int32_t> pos;
          for (NodeId x : n.inputs) pos.insert(pos.end(), pos_[x].begin(), pos_[x].end());
          pos_[id] = std::move(pos);
          ++p_.stats_.views;
          break;
        }
        case Op::Linear:
          addLinear(n);
          break;
        case Op::ReLU:
        case Op::Multi:
          addElementwise(n);
          break;
        case Op::LinState:
          addLinState(n);
          break;
      }
    }
    if (pos_[p_.inputNode_].empty()) {
      // A program whose output does not depend on the Input still takes tokens.
      const Node& in = g_.node(g_.input());
      p_.inputNode_ = in.id;
      p_.inputWidth_ = in.dim;
      p_.inputSlot_ = allocate(in.dim, false);
    }
    p_.scratchSlot_ = allocate(maxScratch_, false);

    for (NodeId id : p_.order_) {
      p_.nodeFirstPos_[id] = static_cast<int32_t>(p_.pos_.size());
      p_.nodeDim_[id] = static_cast<int32_t>(pos_[id].size());
      p_.pos_.insert(p_.pos_.end(), pos_[id].begin(), pos_[id].end());
    }
    p_.outputPos_ = pos_[p_.outputNode_];
    p_.stats_.programNodes = static_cast<int>(p_.order_.size());
    p_.stats_.instructions = static_cast<int>(p_.instrs_.size());
    p_.stats_.bufferSlots = static_cast<int>(isConst_.size());
    for (const Plan::Instr& I : p_.instrs_) {
      switch (I.kind) {
        case Plan::Kind::Csr:
        case Plan::Kind::CsrScratch:
          ++p_.stats_.csrInstructions;
          p_.stats_.nonZeros += p_.rowPtr_[I.coef + I.dim] - p_.rowPtr_[I.coef];
          break;
        case Plan::Kind::Gather:
          ++p_.stats_.gatherInstructions;
          p_.stats_.nonZeros += I.dim;
          break;
        case Plan::Kind::Affine:
          ++p_.stats_.affineInstructions;
          p_.stats_.nonZeros += I.dim;
          break;
        case Plan::Kind::ReluContig:
        case Plan::Kind::ReluGather:
          ++p_.stats_.reluInstructions;
          break;
        case Plan::Kind::MultiContig:
        case Plan::Kind::MultiGather:
          ++p_.stats_.multiInstructions;
          break;
      }
    }
    for (const auto* list : {&p_.instrs_, &p_.foldInstrs_}) {
      for (const Plan::Instr& I : *list) {
        if (I.kind != Plan::Kind::Csr && I.kind != Plan::Kind::CsrScratch) continue;
        for (int r = 0; r < I.dim; ++r) {
          const int32_t terms = p_.rowPtr_[I.coef + r + 1] - p_.rowPtr_[I.coef + r] + 1;
          p_.maxRowTerms_ = std::max(p_.maxRowTerms_, terms);
        }
      }
    }
    buildResetImages();
  }

 private:
  int32_t allocate(int n, bool isConst) {
    const auto first = static_cast<int32_t>(isConst_.size());
    if (static_cast<long long>(first) + n > (1LL << 31) - 1) {
      throw Error("the program needs more than 2^31 values per token");
    }
    isConst_.resize(isConst_.size() + static_cast<size_t>(n), isConst ? 1 : 0);
    initAt_.resize(isConst_.size(), -1);
    initFrom_.resize(isConst_.size(), nullptr);
    return first;
  }

  void setContiguous(NodeId id, int32_t first, int dim) {
    pos_[id].resize(static_cast<size_t>(dim));
    std::iota(pos_[id].begin(), pos_[id].end(), first);
  }

  bool allConst(const std::vector<int32_t>& slots) const {
    for (int32_t s : slots) {
      if (!isConst_[static_cast<size_t>(s)]) return false;
    }
    return true;
  }

  // Appends one coefficient and the slot it multiplies (col_ and the value arrays stay
  // parallel: CSR row pointers and Gather offsets index both).
  int32_t addCoef(const Exact& e, int32_t slot) {
    const auto at = static_cast<int32_t>(p_.val_.size());
    p_.col_.push_back(slot);
    p_.val_.push_back(e.toDouble());
    if (p_.field_ != nullptr) {
      p_.exVal_.push_back(e.liftedTo(*p_.field_).element());
      p_.exKind_.push_back(e.isOne()      ? Plan::CoefKind::One
                           : (-e).isOne() ? Plan::CoefKind::MinusOne
                                          : Plan::CoefKind::General);
    }
    return at;
  }

  // Returns the offset of b in the bias arrays and whether any entry is non-zero.
  std::pair<int32_t, bool> addBias(const ExactVector& b) {
    const auto at = static_cast<int32_t>(p_.bias_.size());
    bool any = false;
    for (const Exact& e : b) {
      p_.bias_.push_back(e.toDouble());
      if (p_.field_ != nullptr) p_.exBias_.push_back(e.liftedTo(*p_.field_).element());
      any = any || !e.isZero();
    }
    return {at, any};
  }

  // Appends an instruction to the per-token program, or to the fold program when
  // every slot it reads is token-independent. Returns whether it was folded.
  bool emit(Plan::Instr I, const std::vector<int32_t>& reads) {
    const bool folded = allConst(reads);
    for (int r = 0; r < I.dim; ++r) isConst_[static_cast<size_t>(I.out + r)] = folded ? 1 : 0;
    (folded ? p_.foldInstrs_ : p_.instrs_).push_back(I);
    if (folded) ++p_.stats_.folded;
    return folded;
  }

  void addLinear(const Node& n) {
    const std::vector<int32_t>& in = pos_[n.inputs[0]];
    const ExactMatrix& A = n.A;
    const auto& rs = A.rowStart();
    const auto& ci = A.colIndex();
    const auto& vs = A.values();
    const int rows = A.rows();
    bool zeroBias = true;
    for (const Exact& e : n.b) zeroBias = zeroBias && e.isZero();
    bool selection = zeroBias, single = true;
    for (int r = 0; r < rows; ++r) {
      const int64_t cnt = rs[r + 1] - rs[r];
      if (cnt > 1) single = false;
      if (cnt != 1 || !vs[static_cast<size_t>(rs[r])].isOne()) selection = false;
    }
    if (selection) {  // Slice, identity, permutation, duplication: a view
      std::vector<int32_t> pos(static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r) pos[r] = in[ci[static_cast<size_t>(rs[r])]];
      pos_[n.id] = std::move(pos);
      ++p_.stats_.views;
      return;
    }
    const int32_t out = allocate(rows, false);
    setContiguous(n.id, out, rows);
    const auto [biasAt, hasBias] = addBias(n.b);
    Plan::Instr I{};
    I.flags = hasBias ? Plan::kHasBias : 0;
    I.dim = rows;
    I.out = out;
    I.bias = biasAt;
    std::vector<int32_t> reads;
    if (single) {
      // One entry per row at most. Scaled identity over a contiguous input -> Affine.
      bool affine = A.rows() == A.cols() && contiguous(in, 0, in.size());
      for (int r = 0; r < rows && affine; ++r) {
        affine = rs[r + 1] - rs[r] == 1 && ci[static_cast<size_t>(rs[r])] == r &&
                 vs[static_cast<size_t>(rs[r])] == vs[0];
      }
      if (affine) {
        I.kind = Plan::Kind::Affine;
        I.in = in[0];
        I.coef = addCoef(vs[0], in[0]);
        emit(I, in);
        return;
      }
      I.kind = Plan::Kind::Gather;
      I.coef = static_cast<int32_t>(p_.val_.size());
      for (int r = 0; r < rows; ++r) {
        if (rs[r + 1] == rs[r]) {
          addCoef(Exact(1), kZeroSlot);
        } else {
          const int32_t slot = in[ci[static_cast<size_t>(rs[r])]];
          reads.push_back(slot);
          addCoef(vs[static_cast<size_t>(rs[r])], slot);
        }
      }
      emit(I, reads);
      return;
    }
    I.kind = Plan::Kind::Csr;
    I.coef = static_cast<int32_t>(p_.rowPtr_.size());
    for (int r = 0; r < rows; ++r) {
      p_.rowPtr_.push_back(static_cast<int32_t>(p_.val_.size()));
      for (int64_t k = rs[r]; k < rs[r + 1]; ++k) {
        const int32_t slot = in[ci[static_cast<size_t>(k)]];
        reads.push_back(slot);
        addCoef(vs[static_cast<size_t>(k)], slot);
      }
    }
    p_.rowPtr_.push_back(static_cast<int32_t>(p_.val_.size()));
    emit(I, reads);
  }

  void addElementwise(const Node& n) {
    const std::vector<int32_t>& in = pos_[n.inputs[0]];
    const int dim = n.dim;
    const int32_t out = allocate(dim, false);
    setContiguous(n.id, out, dim);
    Plan::Instr I{};
    I.dim = dim;
    I.out = out;
    const bool contig = contiguous(in, 0, in.size());
    const bool relu = n.op == Op::ReLU;
    if (contig) {
      I.kind = relu ? Plan::Kind::ReluContig : Plan::Kind::MultiContig;
      I.in = in[0];
    } else {
      I.kind = relu ? Plan::Kind::ReluGather : Plan::Kind::MultiGather;
      I.in = static_cast<int32_t>(p_.idx_.size());
      p_.idx_.insert(p_.idx_.end(), in.begin(), in.end());
    }
    emit(I, in);
  }

  void addLinState(const Node& n) {
    p_.linStates_.push_back(n.id);
    const std::vector<int32_t>& in = pos_[n.inputs[0]];
    const int d = n.dim;
    const int32_t state = allocate(d, false);
    setContiguous(n.id, state, d);
    for (int r = 0; r < d; ++r) {
      initAt_[static_cast<size_t>(state + r)] = r;
      initFrom_[static_cast<size_t>(state + r)] = &n.init;
    }
    const auto [biasAt, hasBias] = addBias(n.bias);
    Plan::Instr I{};
    I.flags = hasBias ? Plan::kHasBias : 0;
    I.dim = d;
    I.out = state;
    I.bias = biasAt;
    I.coef = static_cast<int32_t>(p_.rowPtr_.size());
    bool diagonal = true;
    const auto& ars = n.A.rowStart();
    const auto& aci = n.A.colIndex();
    const auto& avs = n.A.values();
    const auto& brs = n.B.rowStart();
    const auto& bci = n.B.colIndex();
    const auto& bvs = n.B.values();
    for (int r = 0; r < d; ++r) {
      p_.rowPtr_.push_back(static_cast<int32_t>(p_.val_.size()));
      for (int64_t k = ars[r]; k < ars[r + 1]; ++k) {
        const int c = aci[static_cast<size_t>(k)];
        diagonal = diagonal && c == r;
        addCoef(avs[static_cast<size_t>(k)], state + c);
      }
      for (int64_t k = brs[r]; k < brs[r + 1]; ++k) {
        addCoef(bvs[static_cast<size_t>(k)], in[bci[static_cast<size_t>(k)]]);
      }
    }
    p_.rowPtr_.push_back(static_cast<int32_t>(p_.val_.size()));
    I.kind = diagonal ? Plan::Kind::Csr : Plan::Kind::CsrScratch;
    if (!diagonal) maxScratch_ = std::max(maxScratch_, d);
    // A state is never folded: it changes from token to token even without input.
    p_.instrs_.push_back(I);
  }

  void buildResetImages() {
    const size_t slots = isConst_.size();
    p_.resetImage_.assign(slots, 0.0);
    for (size_t s = 0; s < slots; ++s) {
      if (initFrom_[s] != nullptr) p_.resetImage_[s] = (*initFrom_[s])[initAt_[s]].toDouble();
    }
    PlanKernels::runFloat(p_, p_.foldInstrs_.data(), p_.foldInstrs_.data() + p_.foldInstrs_.size(),
                          p_.resetImage_.data());
    if (p_.field_ == nullptr) return;
    p_.exResetImage_.assign(slots, p_.field_->zero());
    for (size_t s = 0; s < slots; ++s) {
      if (initFrom_[s] != nullptr)
        p_.exResetImage_[s] = (*initFrom_[s])[initAt_[s]].liftedTo(*p_.field_).element();
    }
    std::vector<eantic::renf_elem_class> temps(PlanKernels::kExactTemps, p_.field_->zero());
    PlanKernels::runExact(p_, p_.foldInstrs_.data(), p_.foldInstrs_.data() + p_.foldInstrs_.size(),
                          p_.exResetImage_.data(), temps.data());
  }

  Plan& p_;
  const Graph& g_;
  const PlanOptions& opt_;
  std::vector<std::vector<int32_t>> pos_;  // by node id
  std::vector<char> isConst_;              // by slot
  std::vector<int> initAt_;                // by slot: index into a LinState's init
  std::vector<const ExactVector*> initFrom_;
  int maxScratch_ = 0;
};

Plan::~Plan() = default;

Plan::Plan(const Graph& graph, PlanOptions options) { PlanBuilder(*this, graph, options).build(); }

std::shared_ptr<const Plan> Plan::make(const Graph& graph, PlanOptions options) {
  return std::make_shared<const Plan>(graph, options);
}

bool Plan::isProgramNode(NodeId id) const {
  return id >= 0 && static_cast<size_t>(id) < nodeFirstPos_.size() && nodeFirstPos_[id] >= 0;
}

int Plan::width(NodeId id) const {
  if (!isProgramNode(id)) {
    throw Error("node " + std::to_string(id) +
                " is not part of the program (it does not reach the output node " +
                std::to_string(outputNode_) + ")");
  }
  return nodeDim_[id];
}

const CosField& Plan::field() const {
  if (field_ == nullptr) {
    throw Error("this plan was built without the exact path (PlanOptions::exact = false)");
  }
  return *field_;
}

std::string Plan::describe() const {
  std::ostringstream os;
  os << stats_.programNodes << " nodes: " << stats_.instructions << " instructions per token ("
     << stats_.csrInstructions << " sparse, " << stats_.gatherInstructions << " gather, "
     << stats_.affineInstructions << " affine, " << stats_.reluInstructions << " ReLU, "
     << stats_.multiInstructions << " Multi), " << stats_.views << " views, " << stats_.folded
     << " folded constants, " << stats_.nonZeros << " coefficients, " << stats_.bufferSlots
     << " buffer slots";
  return os.str();
}

}  // namespace lsrl
